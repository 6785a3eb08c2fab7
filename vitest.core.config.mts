// Pure-logic tests: plain Node, no Workers runtime.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/core/**/*.test.ts', 'test/ui/**/*.test.ts', 'test/contract/**/*.test.ts', 'test/scripts/**/*.test.ts', 'test/worker/**/*.test.ts', 'test/client/**/*.test.ts', 'test/controllers/**/*.test.ts', 'test/robustness/**/*.test.ts'],
    environment: 'node',
    // Most tests take milliseconds; the bounded-input ones (hundreds of thousands of items) take seconds on a busy
    // 2-core machine, so the bound is well above what any needs when quiet.
    testTimeout: 30_000,
  },
});
