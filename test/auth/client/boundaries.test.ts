/**
 * The client's authorization layer stays portable and apart: it imports only
 * src/protocol and npm packages, and nothing but its two Node-only files
 * (the loopback redirect listener and the file token store) uses node:*.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const DIR = new URL('../../../src/auth/client/', import.meta.url);
const NODE_ONLY = new Set(['loopback-redirect.ts', 'file-token-store.ts']);

function imports(file: string): string[] {
  const text = readFileSync(new URL(file, DIR), 'utf8');
  return [...text.matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]!);
}

describe('src/auth/client', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));

  it('imports only its own files, src/protocol, and npm packages', () => {
    for (const file of files) {
      for (const target of imports(file)) {
        if (target.startsWith('.')) expect(target, `${file} imports ${target}`).toMatch(/^\.\/[\w-]+\.js$|^\.\.\/\.\.\/protocol\//);
      }
    }
  });

  it('keeps node:* out of everything but the Node-only pieces', () => {
    for (const file of files) {
      const node = imports(file).filter((target) => target.startsWith('node:'));
      if (NODE_ONLY.has(file)) continue;
      expect(node, file).toEqual([]);
    }
  });
});
