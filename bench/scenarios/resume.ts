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
