// Scenario: memory per idle watcher. On a freshly started server (freed memory a process keeps would hide
// growth): RSS (/proc) and, where workerd's inspector is open, the live JS heap after a full collection,
// before and after opening N watchers that receive nothing, and again after they close (what the server
// keeps). From two heap snapshots, the groups of objects that grew (what holds memory per watcher).

import { rssBytes } from '../lib/proc';
import { Receiver, openMany } from '../lib/receivers';
import { round, sleep } from '../lib/stats';
import { groupHeap, heapGrowth, type HeapGroup } from '../lib/heap-snapshot';
import type { HeapUsage, InspectorSession } from '../lib/inspector';
import type { FanoutDriver } from './fanout';

export interface MemoryResult {
  system: string;
  variant: string;
  transport: string;
  path: string;
  watchers: number;
  rssBeforeMiB: number;
  rssAfterMiB: number;
  rssClosedMiB: number;
  kibPerWatcher: number; // RSS growth ÷ watchers
  kibPerWatcherKept: number; // RSS still held after every watcher closed ÷ watchers
  listenerKibPerWatcher?: number; // the dual listener's Node process (two sockets per connection), when in the path
  heapBefore?: HeapUsage;
  heapAfter?: HeapUsage;
  heapClosed?: HeapUsage;
  heapBytesPerWatcher?: number; // live JS heap growth ÷ watchers
  heapBytesPerWatcherKept?: number; // after close
  embedderBytesPerWatcher?: number; // the runtime's C++ objects on V8's heap (socket wrappers) ÷ watchers
  heapGrowth?: HeapGroup[]; // from snapshots: what grew, per group, over all watchers
  note?: string;
}

// A snapshot of a heap this large would not fit one JavaScript string here; skip the breakdown past it.
const MAX_SNAPSHOT_CHARS = 400e6;

/**
 * Two passes on the same server. RSS first: a heap snapshot makes workerd allocate (and keep) memory, so
 * none is taken while RSS is read. Then the heap (where `inspector` is given): a snapshot with no watchers,
 * one with N, and the live heap after they closed.
 */
export async function runMemory(d: FanoutDriver, watchers: number, inspector?: InspectorSession, settleMs = 2000): Promise<MemoryResult> {
  const pid = d.pids().server!;
  await d.prepare(`mem${Date.now() % 100000}`);
  // Warm up: a few watchers first, so one-time growth (code, pools) is not counted per watcher.
  const warm = await openMany(20, 20, (j) => d.open(j, new Receiver(1)));
  await sleep(settleMs / 2);
  const before = rssBytes(pid);
  const listener = d.pids().listener;
  const listenerBefore = listener ? rssBytes(listener) : NaN;
  let open = await openMany(watchers, 100, (j) => d.open(j, new Receiver(1)));
  await sleep(settleMs); // let the server settle (replays done, buffers allocated)
  const after = rssBytes(pid);
  const listenerAfter = listener ? rssBytes(listener) : NaN;
  for (const r of [...open, ...warm]) r.close();
  await d.cleanup(); // until the server has let go of them
  await sleep(settleMs);
  const closed = rssBytes(pid);
  const out: MemoryResult = {
    system: d.system, variant: d.variant, transport: d.transport, path: d.path, watchers,
    rssBeforeMiB: round(before / 2 ** 20), rssAfterMiB: round(after / 2 ** 20), rssClosedMiB: round(closed / 2 ** 20),
    kibPerWatcher: round((after - before) / 1024 / watchers, 2),
    kibPerWatcherKept: round((closed - before) / 1024 / watchers, 2),
    listenerKibPerWatcher: listener ? round((listenerAfter - listenerBefore) / 1024 / watchers, 2) : undefined,
  };
  if (!inspector) return out;
  const snapshot = async () => {
    const json = await inspector.heapSnapshot();
    return { usage: await inspector.heapUsage(), groups: json.length < MAX_SNAPSHOT_CHARS ? groupHeap(json) : undefined };
  };
  const h0 = await snapshot();
  open = await openMany(watchers, 100, (j) => d.open(j, new Receiver(1)));
  await sleep(settleMs);
  const h1 = await snapshot();
  for (const r of open) r.close();
  await d.cleanup();
  await sleep(settleMs);
  const h2 = await inspector.heapAfterGc();
  const per = (a: number, b: number) => round((a - b) / watchers);
  return {
    ...out,
    heapBefore: h0.usage, heapAfter: h1.usage, heapClosed: h2,
    heapBytesPerWatcher: per(h1.usage.usedSize, h0.usage.usedSize),
    heapBytesPerWatcherKept: per(h2.usedSize, h0.usage.usedSize),
    embedderBytesPerWatcher: per(h1.usage.embedderHeapUsedSize, h0.usage.embedderHeapUsedSize),
    heapGrowth: h0.groups && h1.groups ? heapGrowth(h0.groups, h1.groups) : undefined,
  };
}

export function describeMemory(m: MemoryResult): string {
  const heap = m.heapBytesPerWatcher === undefined ? '' : `, JS heap ${m.heapBytesPerWatcher} B/watcher (${m.heapBytesPerWatcherKept} B kept after close), runtime objects ${m.embedderBytesPerWatcher} B/watcher`;
  return `${m.system} ${m.variant} ${m.transport}/${m.path} ${m.watchers} idle watchers: RSS ${m.rssBeforeMiB} → ${m.rssAfterMiB} MiB (${m.kibPerWatcher} KiB/watcher), after close ${m.rssClosedMiB} MiB (${m.kibPerWatcherKept} KiB/watcher kept)${m.listenerKibPerWatcher !== undefined ? `, listener ${m.listenerKibPerWatcher} KiB/watcher` : ''}${heap}`;
}
