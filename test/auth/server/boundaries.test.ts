/**
 * The resource server stays portable: nothing in src/auth/server imports
 * node:* (it runs behind createFetchHandler on any web-standard runtime),
 * and what it imports of src/ is only protocol, platform and stores (the
 * layer rule, also checked over the whole graph by test/architecture.test.ts).
 */

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const DIR = new URL('../../../src/auth/server/', import.meta.url);

function imports(file: string): string[] {
  const text = readFileSync(new URL(file, DIR), 'utf8');
  return [...text.matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]!);
}

describe('src/auth/server', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));

  it('has files', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('imports no node:* module', () => {
    for (const file of files) expect(imports(file).filter((target) => target.startsWith('node:')), file).toEqual([]);
  });

  it('imports only its own files, protocol, platform, stores, and jose', () => {
    for (const file of files) {
      for (const target of imports(file)) {
        expect(target, `${file} imports ${target}`).toMatch(/^\.\/[\w-]+\.js$|^\.\.\/\.\.\/(protocol|platform|stores)\/|^jose$/);
      }
    }
  });
});
