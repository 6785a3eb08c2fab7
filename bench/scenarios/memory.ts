// Scenario 5: resident memory per idle watcher: the server process's RSS (/proc) before and after
// opening N watchers that receive nothing, on a freshly started server (freed memory that a process
// keeps would hide growth). Several transports are measured one after another without closing the
// earlier watchers, so each delta is new memory.

import { rssBytes } from '../lib/proc';
import { Receiver, openMany } from '../lib/receivers';
import { round, sleep } from '../lib/stats';
import type { FanoutDriver } from './fanout';

export interface MemoryResult {
  system: string;
  variant: string;
  transport: string;
  watchers: number;
  rssBeforeMiB: number;
  rssAfterMiB: number;
  kibPerWatcher: number;
}

export async function runMemory(drivers: FanoutDriver[], watchers: number): Promise<MemoryResult[]> {
  const out: MemoryResult[] = [];
  const open: Receiver[] = [];
  for (const d of drivers) {
    const pid = d.pids().server!;
    await d.prepare(`mem${Date.now() % 100000}`);
    // Warm up: a few watchers first, so one-time growth (code, pools) is not counted per watcher.
    open.push(...(await openMany(20, 20, (j) => d.open(j, new Receiver(1)))));
    await sleep(1000);
    const before = rssBytes(pid);
    open.push(...(await openMany(watchers, 100, (j) => d.open(j, new Receiver(1)))));
    await sleep(2000); // let the server settle (replays done, buffers allocated)
    const after = rssBytes(pid);
    out.push({
      system: d.system, variant: d.variant, transport: d.transport, watchers,
      rssBeforeMiB: round(before / 2 ** 20), rssAfterMiB: round(after / 2 ** 20),
      kibPerWatcher: round((after - before) / 1024 / watchers, 2),
    });
  }
  for (const r of open) r.close();
  for (const d of [...drivers].reverse()) await d.cleanup(); // each waits for the watchers opened before it
  return out;
}
