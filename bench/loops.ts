// Bench: what the simulated cluster costs the API (issue 20, "the simulated cluster at kube's write cost"), in
// one command and without the rest of `npm run bench`: store writes per pod for Deployments of N replicas to
// Available (scenarios/rollout.ts, each size on a fresh gateway with SIMULATED_NODES=10), and sequential pod
// creates/s with the defaults beside loops off (CONTROLLERS=off, replicas as the defaults), each on a fresh
// gateway as `npm start` runs it. On a shared machine creates/s moves with everyone else's load; so each
// creates phase also gives what does not: the store writes every create led to once the loops have reacted
// (scheduling, binding, kubelet status, events), and workerd's CPU from the first create until they had.
// At most 300 creates a phase, so the default 3 simulated nodes (330 pods) hold them all.
//   npx tsx bench/loops.ts [--replicas=100,1000] [--writes-ms=15000] [--skip=rollout|writes] [--out=file.json]

import { writeFileSync } from 'node:fs';
import { Edgeplane, type EdgeplaneConfig } from './targets/edgeplane';
import { revisions, runRollout, describeRollout, type RolloutResult } from './scenarios/rollout';
import { runWrites, type WriteResult } from './scenarios/writes';
import { CpuMeter, loadAverages } from './lib/proc';
import { round, sleep } from './lib/stats';

const MAX_CREATES = 300;

interface CreatesResult extends WriteResult {
  storeWritesPerCreate: number; // every store's new revisions but Leases', creates included, once the loops are quiet ÷ creates
  reactionMs: number; // from the end of the phase until the stores were quiet
  workerdCpuMsPerPod: number; // workerd's CPU from the phase's start until then ÷ creates
}

// Leases are renewed on a clock (the nodes' every 10 s, the loops' own every 2 s), whatever the pods do: neither
// counted per create nor waited for.
const LEASES = 'coordination.k8s.io/leases';
const total = (m: Map<string, number>) => [...m].reduce((a, [type, v]) => a + (type === LEASES ? 0 : v), 0);

/** Polls the stores' revisions until none moved for `quietMs` (bounded): the loops are done reacting. */
async function quiet(ep: Edgeplane, quietMs: number, maxMs: number): Promise<number> {
  const t0 = performance.now();
  let last = total(await revisions(ep));
  let since = performance.now();
  while (performance.now() - t0 < maxMs) {
    await sleep(250);
    const now = total(await revisions(ep));
    if (now !== last) {
      last = now;
      since = performance.now();
    } else if (performance.now() - since >= quietMs) break;
  }
  return since - t0;
}

const args = process.argv.slice(2);
const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const replicas = (opt('replicas') ?? '100,1000').split(',').map(Number).filter((n) => n > 0);
const writesMs = Number(opt('writes-ms') ?? 15_000);
const skip = new Set((opt('skip') ?? '').split(','));
const NODES = 10; // 1,000 pods need ten simulated nodes of 110 (controllers/kubelet/node-status.ts)

const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

async function withGateway<T>(config: EdgeplaneConfig, fn: (ep: Edgeplane) => Promise<T>): Promise<T> {
  const ep = await Edgeplane.start(config);
  try {
    return await fn(ep);
  } finally {
    await ep.stop();
  }
}

async function main(): Promise<void> {
  const rollouts: RolloutResult[] = [];
  const writes: CreatesResult[] = [];
  log(`load average ${loadAverages().join(' ')}`);
  if (!skip.has('rollout')) {
    for (const n of replicas) {
      const r = await withGateway({ label: `defaults, SIMULATED_NODES=${NODES}`, vars: { SIMULATED_NODES: String(NODES) } }, (ep) => runRollout(ep, n, NODES, 600_000));
      log(describeRollout(r));
      rollouts.push(r);
    }
  }
  if (!skip.has('writes')) {
    for (const config of [{ label: 'defaults' }, { label: 'loops off', vars: { CONTROLLERS: 'off' } }] as EdgeplaneConfig[]) {
      const w = await withGateway(config, async (ep): Promise<CreatesResult> => {
        await ep.createNamespace('bench-writes');
        await quiet(ep, 3000, 60_000); // start-up writes (nodes, leases, service accounts) out of the count
        const before = total(await revisions(ep));
        const meter = new CpuMeter(() => ({ server: ep.workerdPid })).start();
        const r = await runWrites({
          system: 'edgeplane', variant: ep.label, pids: () => ({ server: ep.workerdPid, listener: ep.gatewayPid }),
          create: async (ns, name, body) => { await ep.port.send('POST', `/api/v1/namespaces/${ns}/pods`, body).then((x) => { if (x.status !== 201) throw new Error(`create answered ${x.status}: ${String(x.body).slice(0, 300)}`); }); },
        }, 'bench-writes', 1, MAX_CREATES - 1, writesMs);
        const reactionMs = await quiet(ep, 3000, 120_000);
        const cpu = meter.stop();
        const creates = r.writes + 1; // and the warm-up create
        return {
          ...r, reactionMs: Math.round(reactionMs),
          storeWritesPerCreate: round((total(await revisions(ep)) - before) / creates, 2),
          workerdCpuMsPerPod: round((cpu.processes.server ?? NaN) / creates, 2),
        };
      });
      log(`sequential creates, ${w.variant}: ${w.perSecond}/s (${w.writes} in ${w.seconds} s, p50 ${w.latencyMs.p50} ms, server CPU ${w.serverCpuMsPerWrite} ms/create, load ${w.loadAverage}); ` +
        `${w.storeWritesPerCreate} store writes per create and ${w.workerdCpuMsPerPod} ms of workerd CPU per pod once the loops had reacted (${w.reactionMs} ms after)`);
      writes.push(w);
    }
  }
  log(`load average ${loadAverages().join(' ')}`);
  console.log('| Replicas | Nodes | Create → Available ms | Store writes | Writes/pod | Writes by type |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rollouts) {
    const types = Object.entries(r.writesByType).sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${n}`).join(', ');
    console.log(`| ${r.replicas} | ${r.nodes} | ${r.availableMs} | ${r.writes} | ${r.writesPerPod} | ${types} |`);
  }
  console.log('\n| Variant | Sequential creates/s | p50 ms | server CPU ms/create (phase) | store writes per create | workerd CPU ms per pod (until the loops are quiet) | load |');
  console.log('|---|---|---|---|---|---|---|');
  for (const w of writes) console.log(`| ${w.variant} | ${w.perSecond} | ${w.latencyMs.p50} | ${w.serverCpuMsPerWrite} | ${w.storeWritesPerCreate} | ${w.workerdCpuMsPerPod} | ${w.loadAverage} |`);
  const out = opt('out');
  if (out) writeFileSync(out, JSON.stringify({ rollouts, writes, at: new Date().toISOString() }, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
