// Scenario 2: a full list of 1,000 and 10,000 Pods, from the cache (resourceVersion=0) and consistent
// (resourceVersion unset), and an etcd range read of the same keys: latency p50/p99 over repeated reads.

import { round, summarize, timeRepeated, type Summary } from '../lib/stats';

export interface ListResult {
  system: string;
  variant: string;
  objects: number;
  read: string; // "rv=0 (cache)", "consistent", "range"
  servedBy: string; // "store", "replica", "etcd"
  latencyMs: Summary;
  bytes: number;
  itemsChecked: number;
}

export interface ListCase {
  system: string;
  variant: string;
  objects: number;
  read: string;
  servedBy: string;
  /**
   * One full read. `count`: also count the items (the warm-up's check). The timed reads do not: counting scans
   * the whole body in the load generator (~31 ms for 10,000 pods, 31.9 MB, on this machine), client work that
   * etcd's side (kvs.length) never does, so it was timed on edgeplane's side only.
   */
  once(count: boolean): Promise<{ items: number; bytes: number }>;
}

export async function runList(c: ListCase, maxCount: number, maxMs: number): Promise<ListResult> {
  const first = await c.once(true); // warm-up (a replica's first read syncs it), and the count check
  if (first.items !== c.objects) throw new Error(`${c.system} ${c.read} list of ${c.objects} returned ${first.items} items`);
  const samples = await timeRepeated(() => c.once(false), maxCount, maxMs);
  return {
    system: c.system, variant: c.variant, objects: c.objects, read: c.read, servedBy: c.servedBy,
    latencyMs: summarize(samples), bytes: first.bytes, itemsChecked: first.items,
  };
}

/** Counts items in a k8s list body without a full parse: one `"uid":` per object. */
export function countItems(body: Buffer): number {
  let n = 0;
  const marker = Buffer.from('"uid":"');
  for (let i = body.indexOf(marker); i >= 0; i = body.indexOf(marker, i + 1)) n++;
  return n;
}

export function describeList(r: ListResult): string {
  return `${r.system} ${r.variant} list ${r.objects} ${r.read} (${r.servedBy}): p50 ${r.latencyMs.p50} p99 ${r.latencyMs.p99} ms over ${r.latencyMs.n}, ${round(r.bytes / 1e6, 2)} MB`;
}
