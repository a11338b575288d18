import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Examples and fixtures import the package by name; tests run them from source.
    alias: {
      'tessera-mcp/testing': fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      'tessera-mcp': fileURLToPath(new URL('./src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
