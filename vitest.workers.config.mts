// Durable Object tests in the Workers runtime (workerd) through @cloudflare/vitest-pool-workers.
import { defineConfig } from 'vitest/config';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        // No control loops: these tests count what the store holds.
        bindings: { ADMIN_TOKEN: 'test-admin-token', EVENT_RETENTION_COUNT: '50', CONTROLLERS: 'off' },
      },
    }),
  ],
  test: {
    include: ['test/durable-objects/**/*.test.ts'],
    // A Durable Object test drives a whole request path in workerd: ~1 s quiet, several when the machine is busy.
    testTimeout: 30_000,
  },
});
