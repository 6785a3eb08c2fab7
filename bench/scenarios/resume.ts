// Scenario 4: a watcher that comes back N events behind (1,000 and 10,000): how long until it has
// caught up (every missed event delivered once, in order); etcd's watch from an old revision.

import { Receiver } from '../lib/receivers';
import { round, sleep } from '../lib/stats';

export interface ResumeResult {
  system: string;
  variant: string;
  transport: string;
  behind: number;
  firstEventMs: number;
  catchUpMs: number; // from opening the watch to the last missed event
  eventsPerSecond: number;
  received: number;
  complete: boolean;
  catchUpRunsMs?: number[]; // every run's catch-up, in order (the first is on a cold path); the figures above are the median run's
}

export interface Resumer {
  system: string;
  variant: string;
  transport: string;
  /** Opens a watch that receives every event after `revision`. */
  open(afterRevision: number, r: Receiver): Promise<Receiver>;
}

export async function runResume(s: Resumer, head: number, behind: number, capacity: number, maxMs = 60_000): Promise<ResumeResult> {
  const r = new Receiver(capacity);
  const t0 = performance.now();
  let first = NaN;
  await s.open(head - behind, r);
  const end = t0 + maxMs;
  while (r.count < behind && performance.now() < end) {
    if (Number.isNaN(first) && r.count > 0) first = performance.now() - t0;
    await sleep(2);
  }
  if (Number.isNaN(first) && r.count > 0) first = performance.now() - t0;
  const catchUpMs = performance.now() - t0;
  await sleep(200); // nothing more may come
  r.close();
  return {
    system: s.system, variant: s.variant, transport: s.transport, behind,
    firstEventMs: round(first), catchUpMs: round(catchUpMs), eventsPerSecond: Math.round(r.count / (catchUpMs / 1000)),
    received: r.count, complete: r.count === behind && r.duplicates === 0 && r.outOfOrder === 0 && r.errors === 0,
  };
}

/**
 * `runs` resumes one after the other (`between` runs after each, e.g. to close the client's watches): the median
 * run by catch-up time, complete only if every run was, with every run's catch-up time beside it. One run measured
 * 121–1,239 ms for what the next two did in 133–145 ms (the first resume after 10,000 writes, on a busy machine):
 * a single sample says more about what else ran at that moment than about the path.
 */
export async function runResumeMedian(s: Resumer, head: number, behind: number, capacity: number, runs = 3, between: () => void = () => undefined): Promise<ResumeResult> {
  const all: ResumeResult[] = [];
  for (let k = 0; k < runs; k++) {
    all.push(await runResume(s, head, behind, capacity));
    between();
  }
  const median = [...all].sort((a, b) => a.catchUpMs - b.catchUpMs)[Math.floor(all.length / 2)]!;
  return { ...median, complete: all.every((r) => r.complete), catchUpRunsMs: all.map((r) => r.catchUpMs) };
}
