// The tests that start other runtimes (test/runtimes) and a browser (test/browser), which
// vitest.config.ts leaves out: the same config, with only those files.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({ ...base, test: { ...base.test, include: ['test/runtimes/**/*.test.ts', 'test/browser/**/*.test.ts'], exclude: ['**/node_modules/**'] } });
