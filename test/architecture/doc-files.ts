/**
 * Which files of src/ docs/architecture.md lists. A file is listed when the
 * first cell of a table row names it in backticks, relative to the folder the
 * table is about: the folders a `##` heading names (`## platform/, schema/,
 * stores/`), or a one-line paragraph that starts with one in backticks and ends with a
 * colon (`` `skills/server/` (layer `skills/server`): `` before its table); `## Entry points (src/)` is src/ itself. A name with a
 * folder in it (`platform/crypto-port.ts`) lends that folder to the bare names
 * after it in the same cell (`crypto.ts`).
 */

/** The src files (relative to src/, e.g. `server/core.ts`) the doc's tables name, and the names that match no file. */
export function documentedFiles(doc: string, files: ReadonlySet<string>): { listed: Set<string>; unknown: string[] } {
  const listed = new Set<string>();
  const unknown: string[] = [];
  let bases: string[] = [];
  for (const line of doc.split('\n')) {
    if (line.startsWith('## ')) {
      bases = /\(src\/\)/.test(line) ? [''] : [...line.matchAll(/([a-z][a-z0-9/-]*\/)/g)].map((m) => m[1]!).filter((b) => !b.startsWith('cli/'));
      continue;
    }
    const label = /^`([a-z][a-z0-9/-]*\/)`[^`]*(`[^`]*`[^`]*)?:$/.exec(line);
    if (label) {
      bases = [label[1]!];
      continue;
    }
    if (!line.startsWith('| ') || bases.length === 0) continue;
    const firstCell = line.slice(2, line.indexOf(' |', 2));
    let lent: string[] = [];
    for (const [, name] of firstCell.matchAll(/`([^`]+\.ts)`/g)) {
      // Relative to the table's folder, or already from src/ when it starts with that folder.
      const candidates = [...bases.map((base) => base + name!), ...bases.filter((base) => base && name!.startsWith(base)).map(() => name!), ...lent.map((dir) => dir + name!)];
      const found = [...new Set(candidates.filter((c) => files.has(c)))];
      if (found.length === 0) unknown.push(`${name} (under ${bases.map((b) => b || 'src/').join(', ')})`);
      for (const file of found) listed.add(file);
      if (name!.includes('/')) lent = found.map((file) => file.slice(0, file.lastIndexOf('/') + 1));
    }
  }
  return { listed, unknown };
}
