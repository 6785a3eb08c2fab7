// Entry point of the profiler: `npx tsx bench/profile.ts <scenario> [--store-only] [--heap]`. Starts edgeplane as
// `npm start` does (the defaults, or store only) with workerd's inspector open, runs one scenario through the
// `npm start` port while V8's CPU profiler samples the gateway's isolate (the front door and every Durable
// Object), writes bench/results/profiles/<time>-<scenario>.cpuprofile (Chrome DevTools' Performance panel or
// speedscope open it) and prints where the time went. --heap also writes a heap snapshot (.heapsnapshot) with
// the scenario's watchers connected.
// Scenarios: fanout (1,000 WebSocket watchers, 200 writes at 100/s; --watchers=N --events=N), fanout-http (the same over HTTP streams),
// writes-1 / writes-64 (~1 KiB pod creates, 1 or 64 in flight, 10 s), rollout (a Deployment of 300 replicas),
// idle (10 s with no client: what the control loops cost), apf (scenarios/apf.ts: a ServiceAccount's 64-list flood
// beside another user's and system traffic's probes, 5 s idle then 10 s flooded).
// "(program)" is time in workerd's own C++ (e.g. the WebSocket send path) that V8 cannot attribute; for that,
// `perf record -g -p <workerd pid>` (the pid is printed) while the scenario runs.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULTS, Edgeplane, edgeplaneFanout, PORT, STORE_ONLY } from './targets/edgeplane';
import { runFanout, describeFanout } from './scenarios/fanout';
import { runWrites, describeWrites } from './scenarios/writes';
import { runRollout, describeRollout } from './scenarios/rollout';
import { runApf, describeApf } from './scenarios/apf';
import { InspectorSession } from './lib/inspector';
import { summarizeProfile } from './lib/cpu-profile';
import { sleep } from './lib/stats';

const BENCH = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const scenario = args.find((a) => !a.startsWith('--')) ?? 'fanout';
const SCENARIOS = ['fanout', 'fanout-http', 'writes-1', 'writes-64', 'rollout', 'idle', 'apf'];
if (!SCENARIOS.includes(scenario)) {
  console.error(`usage: npx tsx bench/profile.ts <${SCENARIOS.join('|')}> [--store-only] [--heap]`);
  process.exit(2);
}
const config = args.includes('--store-only') ? STORE_ONLY : DEFAULTS;
const numberArg = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
// fanout: --watchers=N (1,000) and --events=N (200), e.g. --watchers=5000 --events=20 as the bench's W = 5,000 row.
const WATCHERS = numberArg('watchers', 1000);
const EVENTS = numberArg('events', 200);

const ep = await Edgeplane.start({ ...config, inspector: true });
console.log(`edgeplane (${ep.label}): npm start port ${ep.url}, workerd pid ${ep.workerdPid}, gateway Node pid ${ep.gatewayPid}, inspector port ${ep.inspectorPort}`);
const inspector = await InspectorSession.user(ep.inspectorPort!);
const out = join(BENCH, 'results', 'profiles');
mkdirSync(out, { recursive: true });
const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${scenario}${config === STORE_ONLY ? '-store-only' : ''}`;
try {
  const heapSnapshot = async () => {
    if (!args.includes('--heap')) return;
    const file = join(out, `${stamp}.heapsnapshot`);
    writeFileSync(file, await inspector.heapSnapshot());
    console.log(`wrote ${file}`);
  };
  const run = async (): Promise<string> => {
    switch (scenario) {
      case 'fanout':
      case 'fanout-http': {
        const d = edgeplaneFanout(ep, scenario === 'fanout' ? 'ws' : 'http', PORT);
        // The snapshot is taken after the watchers connect and before the first write (FanoutDriver.heap).
        d.heap = async () => {
          await heapSnapshot();
          return inspector.heapUsage();
        };
        return describeFanout(await runFanout(d, { watchers: WATCHERS, mode: 'fixed', ratePerSecond: 100, events: EVENTS, maxWriteMs: 30_000, drainMs: 60_000, measureHeap: true }));
      }
      case 'writes-1':
      case 'writes-64': {
        await ep.createNamespace('profile');
        const c = scenario === 'writes-1' ? 1 : 64;
        const r = await runWrites({
          system: 'edgeplane', variant: ep.label, pids: () => ({ server: ep.workerdPid }),
          create: async (ns, name, body) => {
            const res = await ep.port.send('POST', `/api/v1/namespaces/${ns}/pods`, body);
            if (res.status !== 201) throw new Error(`create answered ${res.status}`);
          },
        }, 'profile', c, 20_000, 10_000);
        return describeWrites(r);
      }
      case 'rollout':
        return describeRollout(await runRollout(ep, 300, 3, 300_000));
      case 'apf':
        return describeApf(await runApf(ep, { concurrency: 64, idleMs: 5000, floodMs: 10_000 }));
      default: {
        await sleep(10_000);
        await heapSnapshot();
        return 'idle 10 s';
      }
    }
  };
  if (scenario.startsWith('writes') || scenario === 'rollout' || scenario === 'apf') {
    // Let the gateway's start-up work (bundled modules, node registration) finish outside the profile.
    await sleep(3000);
  }
  const { profile, result } = await inspector.cpuProfile(run);
  console.log(result);
  const file = join(out, `${stamp}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  console.log(`wrote ${file}`);
  const s = summarizeProfile(profile);
  const pct = (x: number) => `${Math.round((x / s.sampledMs) * 100)}%`;
  console.log(`\nsampled ${s.sampledMs} ms of the isolate's thread: JavaScript ${s.jsMs} ms (${pct(s.jsMs)}), workerd native "(program)" ${s.programMs} ms (${pct(s.programMs)}), GC ${s.gcMs} ms (${pct(s.gcMs)}), idle ${s.idleMs} ms (${pct(s.idleMs)})`);
  console.log('\nself time (ms, then total):');
  for (const f of s.top) console.log(`${String(f.selfMs).padStart(9)} ${String(f.totalMs).padStart(9)}  ${f.name}`);
  console.log('\ntotal time (ms, then self):');
  for (const f of s.topTotal) console.log(`${String(f.totalMs).padStart(9)} ${String(f.selfMs).padStart(9)}  ${f.name}`);
} finally {
  inspector.close();
  await ep.stop();
}
process.exit(0);
