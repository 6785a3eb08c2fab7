// Scenario 5: resident memory per idle watcher: the server process's RSS (/proc) before and after
// opening N watchers that receive nothing.

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

export async function runMemory(d: FanoutDriver, watchers: number): Promise<MemoryResult> {
  const pid = d.pids().server!;
  await d.prepare(`mem${Date.now() % 100000}`);
  await sleep(1000);
  const before = rssBytes(pid);
  const receivers = await openMany(watchers, 100, (j) => d.open(j, new Receiver(1)));
  await sleep(2000); // let the server settle (replays done, buffers allocated)
  const after = rssBytes(pid);
  for (const r of receivers) r.close();
  await d.cleanup();
  return {
    system: d.system, variant: d.variant, transport: d.transport, watchers,
    rssBeforeMiB: round(before / 2 ** 20), rssAfterMiB: round(after / 2 ** 20),
    kibPerWatcher: round((after - before) / 1024 / watchers, 2),
  };
}
