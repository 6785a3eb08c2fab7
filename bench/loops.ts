// Bench: what the simulated cluster costs the API (issue 20, "the simulated cluster at kube's write cost"), in
// one command and without the rest of `npm run bench`: store writes per pod for Deployments of N replicas to
// Available (scenarios/rollout.ts, each size on a fresh gateway with SIMULATED_NODES=10), and sequential pod
// creates/s with the defaults beside loops off (CONTROLLERS=off, replicas as the defaults), each on a fresh
// gateway as `npm start` runs it.
//   npx tsx bench/loops.ts [--replicas=100,1000] [--writes-ms=15000] [--skip=rollout|writes] [--out=file.json]

import { writeFileSync } from 'node:fs';
import { Edgeplane, type EdgeplaneConfig } from './targets/edgeplane';
import { runRollout, describeRollout, type RolloutResult } from './scenarios/rollout';
import { runWrites, type WriteResult } from './scenarios/writes';
import { loadAverages } from './lib/proc';

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
  const writes: WriteResult[] = [];
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
      const w = await withGateway(config, async (ep) => {
        await ep.createNamespace('bench-writes');
        return runWrites({
          system: 'edgeplane', variant: ep.label, pids: () => ({ server: ep.workerdPid, listener: ep.gatewayPid }),
          create: async (ns, name, body) => { await ep.port.send('POST', `/api/v1/namespaces/${ns}/pods`, body).then((r) => { if (r.status !== 201) throw new Error(`create answered ${r.status}`); }); },
        }, 'bench-writes', 1, 100_000, writesMs);
      });
      log(`sequential creates, ${w.variant}: ${w.perSecond}/s (${w.writes} in ${w.seconds} s, p50 ${w.latencyMs.p50} ms, server CPU ${w.serverCpuMsPerWrite} ms/create, load ${w.loadAverage})`);
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
  console.log('\n| Variant | Sequential creates/s | p50 ms | server CPU ms/create | load |');
  console.log('|---|---|---|---|---|');
  for (const w of writes) console.log(`| ${w.variant} | ${w.perSecond} | ${w.latencyMs.p50} | ${w.serverCpuMsPerWrite} | ${w.loadAverage} |`);
  const out = opt('out');
  if (out) writeFileSync(out, JSON.stringify({ rollouts, writes, at: new Date().toISOString() }, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
