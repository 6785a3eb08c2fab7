// End-to-end tests: the real gateway (Miniflare, as `npm start` runs it) driven over HTTP and by kubectl.
//
// `npm run test:e2e` runs them in two passes (E2E_SET): first the files that only check behaviour, two at a time
// (each starts its own gateway on a free port and a state folder of its own; most of their time is waiting on
// control loops' timers, so two share this 2-core machine well), then, one at a time on an otherwise idle machine,
// the files that measure something — a victim's latency under attack, RSS, a listener's connection counts, the
// robustness checker's throughput. Without E2E_SET (e.g. `npx vitest run --config vitest.e2e.config.mts <file>`)
// the named files run one at a time.
import { defineConfig } from 'vitest/config';

// Files that measure latency, memory or load, or drive a listener's limits: never beside another gateway.
const QUIET = [
  'admission-policy', 'admission-policy-mutating', 'admission-webhooks', 'bounded-input', 'connection-limit', 'controllers', 'disruption', 'fanout',
  'failpoints', 'flowcontrol', 'fuzz', 'fuzz-loops', 'gc-hostile', 'hostile-numbers', 'hostile-regex',
  'hostile-services-encodings', 'hostile-workloads', 'memory-bounds', 'oversized-keepalive', 'pod-security-namespaces', 'preemption',
  'rbac-bootstrap', 'robustness', 'scheduler', 'slow-watcher', 'stalled-socket', 'static-pods-hostile', 'watch-quota', 'ws-ping-hangup',
].map((name) => `test/e2e/${name}.test.ts`);

const set = process.env.E2E_SET; // 'shared' | 'quiet' | undefined (all, one at a time)
if (set !== undefined && set !== 'shared' && set !== 'quiet') throw new Error(`E2E_SET must be shared or quiet, not ${set}`);

export default defineConfig({
  test: {
    include: set === 'quiet' ? QUIET : ['test/e2e/**/*.test.ts'],
    exclude: set === 'shared' ? QUIET : [],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: set === 'shared',
    maxWorkers: set === 'shared' ? 2 : 1,
  },
});
