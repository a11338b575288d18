import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src/', import.meta.url));

export default defineConfig({
  resolve: {
    // Examples, fixtures and the CLI import the package by name; tests run them from source.
    // Each entry point `tessera-mcp/<name>` is the file src/<name>.ts (as in package.json "exports"; `skills/node` is src/skills-node.ts).
    alias: [
      { find: /^tessera-mcp$/, replacement: `${src}index.ts` },
      { find: /^tessera-mcp\/skills\/node$/, replacement: `${src}skills-node.ts` },
      { find: /^tessera-mcp\/(.+)$/, replacement: `${src}$1.ts` },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Other runtimes and a browser, installed by .ci/run: `npm run test:runtimes` / `npm run test:browser`.
    exclude: ['test/runtimes/**', 'test/browser/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
