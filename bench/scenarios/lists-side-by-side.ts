// Scenario (A/B): full LISTs from two gateways and etcd in one run, their requests interleaved one at a time
// (this checkout, the ref, etcd, this checkout, ...), so that all see the same load from other work and each list
// runs alone. etcd ranges twice: the pods as the bench writes them (bench/run.ts's "range", ~1.35 KB each) and the
// objects as the gateway stores and answers them (~3.2 KB: kube's defaults, the ServiceAccount volume and
// managedFields, which kube-apiserver keeps in etcd too), the like-for-like bytes.

import { CpuMeter } from '../lib/proc';
import { pool } from '../lib/http';
import { round, summarize, type Summary } from '../lib/stats';
import type { Edgeplane } from '../targets/edgeplane';
import type { Etcd } from '../targets/etcd';
import { podJson } from '../lib/objects';
import { countItems } from './lists';

export interface SideBySideTarget {
  label: string;
  /** One full read: its item count (when `count`: scenarios/lists.ts ListCase.once) and bytes. */
  once(count: boolean): Promise<{ items: number; bytes: number }>;
  /** The processes whose CPU a read costs (server, listener). */
  pids(): Record<string, number | undefined>;
}

export interface SideBySideRow {
  label: string;
  latencyMs: Summary;
  bytes: number;
  cpuMsPerRead: Record<string, number>;
}

export function gatewayTarget(label: string, ep: Edgeplane, path: string): SideBySideTarget {
  return {
    label,
    once: async (count) => {
      const res = await ep.port.send('GET', path);
      if (res.status !== 200) throw new Error(`${label}: list answered ${res.status}`);
      return { items: count ? countItems(res.body) : -1, bytes: res.body.length };
    },
    pids: () => ({ workerd: ep.workerdPid, listener: ep.gatewayPid }),
  };
}

export function etcdTarget(label: string, etcd: Etcd, prefix: string, bytes: number): SideBySideTarget {
  return { label, once: async () => ({ items: await etcd.range(prefix), bytes }), pids: () => ({ etcd: etcd.pid }) };
}

/** Pods p-000000.. in `namespace` of each gateway, at once (64 in flight each). */
export async function populateGateways(eps: Edgeplane[], namespace: string, n: number): Promise<void> {
  await Promise.all(eps.map(async (ep) => {
    await ep.createNamespace(namespace);
    const created = await pool(n, 64, 600_000, async (i) => {
      const name = `p-${String(i).padStart(6, '0')}`;
      for (let attempt = 1; ; attempt++) {
        const r = await ep.port.send('POST', `/api/v1/namespaces/${namespace}/pods`, podJson(namespace, name)).catch((e: unknown) => ({ status: 0, body: Buffer.from(String(e)) }));
        if (r.status === 201 || (r.status === 409 && attempt > 1)) return;
        if (attempt >= 5) throw new Error(`create answered ${r.status}: ${r.body.toString().slice(0, 200)}`);
      }
    });
    if (created !== n) throw new Error(`created only ${created} of ${n} pods`);
  }));
}

/** The pods as the bench writes them, and (read from `from`'s list) as the gateway stores them, under two etcd prefixes. */
export async function populateEtcd(etcd: Etcd, namespace: string, n: number, from: Edgeplane): Promise<{ clientBytes: number; storedBytes: number }> {
  await pool(n, 64, 600_000, (i) => etcd.put(`/registry/pods/${namespace}/p-${String(i).padStart(6, '0')}`, podJson(namespace, `p-${String(i).padStart(6, '0')}`)).then(() => undefined));
  const list = await from.port.json('GET', `/api/v1/namespaces/${namespace}/pods`);
  const stored: string[] = list.items.map((o: unknown) => JSON.stringify(o));
  await pool(stored.length, 64, 600_000, (i) => etcd.put(`/registry/stored-pods/${namespace}/p-${String(i).padStart(6, '0')}`, stored[i]).then(() => undefined));
  return { clientBytes: n * podJson(namespace, 'p-000000').length, storedBytes: stored.reduce((s, x) => s + x.length, 0) };
}

/** Rounds of one read per target in turn (the order rotating each round), until `samples` rounds or `maxMs`. */
export async function interleave(targets: SideBySideTarget[], expected: number, samples: number, maxMs: number): Promise<SideBySideRow[]> {
  for (const t of targets) {
    const first = await t.once(true); // warm-up, and the count check
    if (first.items !== expected) throw new Error(`${t.label} returned ${first.items} of ${expected} items`);
  }
  const times = targets.map(() => [] as number[]);
  const cpu = targets.map(() => ({} as Record<string, number>));
  const bytes = targets.map(() => 0);
  const end = performance.now() + maxMs;
  for (let round = 0; round < samples && performance.now() < end; round++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (k + round) % targets.length;
      const meter = new CpuMeter(targets[i].pids).start();
      const t0 = performance.now();
      const r = await targets[i].once(false);
      times[i].push(performance.now() - t0);
      bytes[i] = r.bytes;
      for (const [name, ms] of Object.entries(meter.stop().processes)) cpu[i][name] = (cpu[i][name] ?? 0) + ms;
    }
  }
  return targets.map((t, i) => ({
    label: t.label,
    latencyMs: summarize(times[i]),
    bytes: bytes[i],
    cpuMsPerRead: Object.fromEntries(Object.entries(cpu[i]).map(([k, v]) => [k, round(v / times[i].length, 1)])),
  }));
}

export function describeRows(title: string, rows: SideBySideRow[], reference: string): string {
  const ref = rows.find((r) => r.label === reference);
  const lines = [`${title}`];
  for (const r of rows) {
    const ratio = ref ? ` (${(r.latencyMs.p50 / ref.latencyMs.p50).toFixed(2)}× ${reference})` : '';
    const cpu = Object.entries(r.cpuMsPerRead).map(([k, v]) => `${k} ${v}`).join(', ');
    lines.push(`  ${r.label.padEnd(34)} p50 ${String(r.latencyMs.p50).padStart(8)} ms${ratio}, p99 ${r.latencyMs.p99} ms over ${r.latencyMs.n}, ${round(r.bytes / 1e6, 2)} MB, CPU ms per read: ${cpu}`);
  }
  return lines.join('\n');
}
