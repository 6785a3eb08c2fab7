// Pure-logic tests: plain Node, no Workers runtime.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/core/**/*.test.ts', 'test/worker/**/*.test.ts', 'test/client/**/*.test.ts', 'test/controllers/**/*.test.ts', 'test/robustness/**/*.test.ts'],
    environment: 'node',
  },
});
