/**
 * The package's public API as a consumer's compiler sees it: the built
 * declarations (dist/src/<entry>.d.ts) of each entry point in package.json
 * "exports", the names each exports, and the types their signatures name that
 * no entry exports (a user could see such a type but never name it).
 */

import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface EntryApi {
  /** The export names, sorted; types and values alike. */
  names: string[];
  /** `Name (used by entry.export)` for each type from the package's own files that the signatures use and no entry exports. */
  unexported: string[];
}

const ownFile = (file: string, distSrc: string): boolean => !relative(distSrc, file).startsWith('..') && file.endsWith('.d.ts');

/** Walks the type positions of a declaration (no bodies exist in .d.ts files; private members carry no types). */
function typeReferences(node: ts.Node, found: ts.Node[]): void {
  if (ts.isTypeReferenceNode(node)) found.push(node.typeName);
  else if (ts.isExpressionWithTypeArguments(node)) found.push(node.expression);
  // `typeof value` names a value (e.g. `ask.form`), reached through what is exported: not a type to export.
  else if (ts.isImportTypeNode(node) && node.qualifier) found.push(node.qualifier);
  ts.forEachChild(node, (child) => typeReferences(child, found));
}

/** The API of each entry: `entries` maps an entry name (`index`, `client`, …) to its built .d.ts path. */
export function publicApi(entries: Record<string, string>, distSrc: string): Record<string, EntryApi> {
  const program = ts.createProgram(Object.values(entries), { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const resolveAlias = (symbol: ts.Symbol): ts.Symbol => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const exportsOf = new Map<string, ts.Symbol[]>();
  for (const [name, file] of Object.entries(entries)) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is missing: run \`npm run build\``);
    exportsOf.set(name, checker.getExportsOfModule(checker.getSymbolAtLocation(source)!));
  }
  const exported = new Set([...exportsOf.values()].flat().map(resolveAlias));
  const api: Record<string, EntryApi> = {};
  for (const [entry, symbols] of exportsOf) {
    const unexported = new Set<string>();
    for (const symbol of symbols) {
      for (const declaration of resolveAlias(symbol).declarations ?? []) {
        const references: ts.Node[] = [];
        typeReferences(declaration, references);
        for (const reference of references) {
          const target = checker.getSymbolAtLocation(reference);
          if (!target) continue;
          const resolved = resolveAlias(target);
          // Type parameters, enum members and what lives outside the package are not ours to export.
          if (resolved.flags & (ts.SymbolFlags.TypeParameter | ts.SymbolFlags.EnumMember)) continue;
          const declared = resolved.declarations?.[0];
          if (!declared || !ownFile(resolve(declared.getSourceFile().fileName), distSrc)) continue;
          if (ts.isModuleDeclaration(declared) || ts.isSourceFile(declared)) continue;
          if (!exported.has(resolved)) {
            unexported.add(`${resolved.name} (${relative(dirname(distSrc), declared.getSourceFile().fileName)}, used by ${entry}.${symbol.name})`);
          }
        }
      }
    }
    api[entry] = { names: symbols.map((s) => s.name).sort(), unexported: [...unexported].sort() };
  }
  return api;
}
