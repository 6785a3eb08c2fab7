// Controllers: events expire EVENT_TTL_SECONDS (default 3600, kube-apiserver --event-ttl 1h) after they
// were last written. kube attaches an etcd lease to every event write; edgeplane's stores have no
// per-key TTL, so the controller manager sweeps instead: it follows events with an informer and deletes,
// as the garbage collector's identity, each one whose newest recorder timestamp (lastTimestamp, series
// lastObservedTime, eventTime; else creationTimestamp) is older than the TTL. A sweep runs
// every min(TTL, 60 s) / 2, so an event outlives its TTL by at most half a sweep period plus the delete.

import type { KubeObject } from '../client/types';
import { isNotFound, isConflict, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';

export const DEFAULT_EVENT_TTL_SECONDS = 3600;

/**
 * When the event was last written, as its recorder tells: the newest of lastTimestamp, series
 * lastObservedTime and eventTime (every recorder write sets one of them); creationTimestamp only when none
 * is set. NaN when nothing parses.
 */
export function lastWritten(ev: KubeObject): number {
  const e = ev as KubeObject & { lastTimestamp?: string; eventTime?: string; series?: { lastObservedTime?: string } };
  const parse = (ts: (string | undefined)[]) => ts.map((t) => (t ? Date.parse(t) : NaN)).filter((t) => Number.isFinite(t));
  const times = parse([e.lastTimestamp, e.series?.lastObservedTime, e.eventTime]);
  if (times.length) return Math.max(...times);
  const created = parse([ev.metadata.creationTimestamp as string | undefined]);
  return created.length ? created[0] : NaN;
}

export class EventTTLSweeper {
  private timer: unknown;
  private stopped = false;
  private sweeping: Promise<void> | undefined;
  readonly periodMs: number;

  constructor(private readonly api: Api, private readonly events: SharedInformer, private readonly clock: Clock, private readonly ttlSeconds: number) {
    this.periodMs = Math.max(200, Math.min(ttlSeconds * 1000, 60_000) / 2);
  }

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.sweeping = this.sweep().then(() => undefined, (e) => console.error(`event ttl: ${(e as Error).message}`)).finally(() => {
        if (!this.stopped) this.timer = this.clock.setTimeout(loop, this.periodMs);
      });
    };
    this.timer = this.clock.setTimeout(loop, this.periodMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clock.clearTimeout(this.timer);
    await this.sweeping;
  }

  /** Deletes the expired events; returns how many. */
  async sweep(): Promise<number> {
    const cutoff = this.clock.now() - this.ttlSeconds * 1000;
    let deleted = 0;
    for (const ev of this.events.list()) {
      const at = lastWritten(ev);
      if (!(at < cutoff)) continue;
      try {
        // The resourceVersion precondition: an event written again meanwhile lives on.
        await this.api.delete(RESOURCES.events, ev.metadata.namespace!, ev.metadata.name!, { preconditions: { resourceVersion: ev.metadata.resourceVersion as string } });
        deleted++;
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
    }
    return deleted;
  }
}
