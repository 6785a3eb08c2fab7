// Entry point of the A/B comparison: `npx tsx bench/side-by-side.ts <git ref> [--defaults] [--seconds=10]
// [--concurrency=1,8,64]`. Starts two gateways as `npm start` does — this checkout and <ref> (exported with
// `git archive` to a temporary folder, sharing this checkout's node_modules) — and drives ~1 KiB pod creates
// into both at the same time, phase by phase, printing creates/s and server CPU per create for each.
// Why: on a shared machine the load of other work moves a figure by ±30% from one minute to the next (one
// gateway measured after the other compares two different machines); two gateways measured together see the
// same load, so their ratio holds. Store only unless --defaults. `--apf` runs the API Priority and Fairness flood
// (scenarios/apf.ts: 64 concurrent lists from one ServiceAccount, another user's and system traffic's probes,
// alternating idle and flood windows) on both at once, with the defaults. `--lists[=1000,10000]` fills both (store
// only) with the same pods and reads full lists from each and from etcd in turn (scenarios/lists-side-by-side.ts):
// p50/p99, bytes, CPU per list, ratio to etcd's range (`--samples=40`, `--no-etcd`).

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULTS, Edgeplane, STORE_ONLY } from './targets/edgeplane';
import { describeWrites, runWrites, type WriteResult } from './scenarios/writes';
import { sleep } from './lib/stats';
import { describeApf, runApf } from './scenarios/apf';
import { loadAverages, settle } from './lib/proc';
import { Etcd } from './targets/etcd';
import { describeRows, etcdTarget, gatewayTarget, interleave, populateEtcd, populateGateways } from './scenarios/lists-side-by-side';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const ref = args.find((a) => !a.startsWith('--'));
const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
if (!ref) {
  console.error('usage: npx tsx bench/side-by-side.ts <git ref> [--defaults] [--seconds=10] [--concurrency=1,8,64]');
  process.exit(2);
}
const seconds = Number(opt('seconds') ?? 10);
const concurrency = (opt('concurrency') ?? '1,8,64').split(',').map(Number);
const apf = args.includes('--apf');
const config = args.includes('--defaults') || apf ? DEFAULTS : STORE_ONLY;
const listsArg = args.find((a) => a === '--lists' || a.startsWith('--lists='));
const listSizes = listsArg ? (opt('lists') ?? '1000,10000').split(',').map(Number) : [];

const other = mkdtempSync(join(tmpdir(), 'edgeplane-ab-'));
execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${ref}" | tar -x -C "${other}"`]);
symlinkSync(join(ROOT, 'node_modules'), join(other, 'node_modules'));
// The console's bundle is generated (git-ignored); the gateway imports it.
const assets = join('worker', 'ui-assets.generated.ts');
if (existsSync(join(ROOT, assets))) copyFileSync(join(ROOT, assets), join(other, assets));

// The other checkout's own harness starts its own code.
const { Edgeplane: OtherEdgeplane } = (await import(join(other, 'bench', 'targets', 'edgeplane.ts'))) as { Edgeplane: typeof Edgeplane };
const gateways = [
  { label: 'this checkout', ep: await Edgeplane.start(config) },
  { label: ref, ep: await OtherEdgeplane.start(config) },
];
try {
  if (listSizes.length > 0) {
    await sideBySideLists(listSizes);
  } else if (apf) {
    console.log(`settled ${(await Promise.all(gateways.map((g) => settle(g.ep.workerdPid, 60_000)))).join(', ')} ms`);
    const results = await Promise.all(gateways.map((g) => runApf(g.ep, { concurrency: 64, idleMs: 15_000, floodMs: 30_000, rounds: 5 })));
    results.forEach((r, i) => console.log(`${gateways[i]!.label}: ${describeApf(r)}`));
  }
  if (!apf && !listsArg) for (const g of gateways) await g.ep.createNamespace('side-by-side');
  // With the loops on, a pod create waits for the namespace's `default` ServiceAccount (ServiceAccount admission
  // refuses with 403 when the controller has not made it within ~1.5 s, which a busy machine can exceed).
  if (!apf && !listsArg && config === DEFAULTS) {
    for (const g of gateways) {
      for (let i = 0; i < 600 && (await g.ep.port.send('GET', '/api/v1/namespaces/side-by-side/serviceaccounts/default')).status !== 200; i++) await sleep(100);
    }
  }
  for (const c of apf || listsArg ? [] : concurrency) {
    const results: WriteResult[] = await Promise.all(gateways.map((g) => runWrites({
      system: 'edgeplane', variant: `${config.label}, ${g.label}`, pids: () => ({ server: g.ep.workerdPid }),
      create: async (ns, name, body) => {
        const res = await g.ep.port.send('POST', `/api/v1/namespaces/${ns}/pods`, body);
        if (res.status !== 201) throw new Error(`create answered ${res.status}: ${String(res.body).slice(0, 300)}`);
      },
    }, 'side-by-side', c, 20_000, seconds * 1000)));
    for (const r of results) console.log(describeWrites(r));
    const [mine, theirs] = results;
    console.log(`  ${c} in flight, this checkout ÷ ${ref}: creates/s ${(mine.perSecond / theirs.perSecond).toFixed(2)}×, server CPU per create ${(mine.serverCpuMsPerWrite / theirs.serverCpuMsPerWrite).toFixed(2)}×`);
  }
} finally {
  for (const g of gateways) await g.ep.stop();
  rmSync(other, { recursive: true, force: true });
}
process.exit(0);

async function sideBySideLists(sizes: number[]): Promise<void> {
  const etcd = args.includes('--no-etcd') ? undefined : await Etcd.start();
  const samples = Number(opt('samples') ?? 40);
  try {
    for (const n of sizes) {
      const ns = `lists-${n}`;
      await populateGateways(gateways.map((g) => g.ep), ns, n);
      const refs = etcd ? await populateEtcd(etcd, ns, n, gateways[0]!.ep) : undefined;
      for (const [read, query] of [['rv=0', '?resourceVersion=0'], ['consistent', '']] as const) {
        const targets = gateways.map((g) => gatewayTarget(g.label, g.ep, `/api/v1/namespaces/${ns}/pods${query}`));
        if (etcd && refs) {
          targets.push(etcdTarget('etcd range', etcd, `/registry/pods/${ns}/`, refs.clientBytes));
          targets.push(etcdTarget('etcd range, stored objects', etcd, `/registry/stored-pods/${ns}/`, refs.storedBytes));
        }
        const rows = await interleave(targets, n, samples, n >= 10_000 ? 90_000 : 30_000);
        console.log(describeRows(`${n} pods, ${read} (load ${loadAverages().map((l) => l.toFixed(1)).join(' ')})`, rows, 'etcd range'));
        const [mine, theirs] = rows;
        console.log(`  this checkout ÷ ${ref}: p50 ${(mine.latencyMs.p50 / theirs.latencyMs.p50).toFixed(2)}×, p99 ${(mine.latencyMs.p99 / theirs.latencyMs.p99).toFixed(2)}×`);
      }
    }
  } finally {
    await etcd?.stop();
  }
}
