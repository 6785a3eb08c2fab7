// Controllers: a core/v1 event recorder (client-go tools/record). Every event goes through the recorder's
// EventCorrelator (event-correlator.ts: aggregation, dedup, spam filter) when it is recorded, so a dropped or
// repeated event costs no request; what is left is written in the background, one request at a time, from a
// queue of at most 1,000 events (client-go's broadcaster queue, maxQueuedEvents, drops when full), with at most
// EVENT_WRITERS event writes in flight across all recorders. A repeat
// patches the first event's count, lastTimestamp and message; if that event is gone (404) it is created again
// under the same name with the count so far (recordEvent).

import type { KubeObject } from '../client/types';
import { isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import { EventCorrelator, type Correlated } from './event-correlator';

export { AGGREGATE_INTERVAL_MS, AGGREGATE_MAX_EVENTS, COMBINED_PREFIX, SPAM_BURST, SPAM_QPS } from './event-correlator';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

export const MAX_QUEUED_EVENTS = 1000; // maxQueuedEvents
// Event writes in flight at once across every recorder of the isolate (each recorder writes one at a time, and
// takes its turn for a slot in order): events are best effort, and a burst of them (a kubelet per simulated
// node, each with four per pod started) must not stand between anyone's request and the stores.
export const EVENT_WRITERS = 2;

const slots = { free: EVENT_WRITERS, waiting: [] as (() => void)[] };
const acquire = (): Promise<void> => {
  if (slots.free > 0) {
    slots.free--;
    return Promise.resolve();
  }
  return new Promise((resolve) => slots.waiting.push(resolve));
};
const release = (): void => {
  const next = slots.waiting.shift();
  if (next) next();
  else slots.free++;
};

/** Second-precision RFC 3339, as metav1.Time serializes. */
export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

interface Pending {
  c: Correlated;
  obj: KubeObject;
  type: EventType;
  reason: string;
  at: number;
}

export class ApiEventRecorder implements EventRecorder {
  private readonly correlator = new EventCorrelator();
  private readonly pending: Pending[] = [];
  private head = 0;
  private draining: Promise<void> | undefined;
  dropped = 0; // events the full queue refused (for tests and status)

  constructor(private readonly api: Api, private readonly component: string, private readonly clock: Clock, private readonly host = 'edgeplane') {}

  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const at = this.clock.now(); // when it happened, not when the write gets its turn
    const m = obj.metadata;
    const c = this.correlator.correlate(
      { component: this.component, host: this.host, kind: obj.kind, namespace: m.namespace, name: m.name, uid: m.uid as string | undefined, apiVersion: obj.apiVersion, type, reason },
      m.namespace || 'default', message, at,
      () => `${m.name}.${(BigInt(at) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6))).toString(16)}`,
    );
    if (!c) return; // spam
    if (this.pending.length - this.head >= MAX_QUEUED_EVENTS) {
      this.dropped++;
      return;
    }
    this.pending.push({ c, obj, type, reason, at });
    this.draining ??= this.drain().finally(() => { this.draining = undefined; });
  }

  /** Resolves once every event recorded so far is written (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.head < this.pending.length) {
      const next = this.pending[this.head++]!;
      if (this.head > 256 && this.head * 2 > this.pending.length) {
        this.pending.splice(0, this.head);
        this.head = 0;
      }
      await acquire();
      try {
        await this.write(next);
      } catch (e) {
        const code = (e as { code?: number }).code;
        // 403/404: the namespace is going or gone; 409: already there (client-go does not retry either).
        if (code !== 403 && code !== 404 && code !== 409) console.error(`${this.component}: event ${next.reason} not written: ${(e as Error).message}`);
      } finally {
        release();
      }
    }
  }

  private async write({ c, obj, type, reason, at }: Pending): Promise<void> {
    const now = kubeTime(at);
    if (c.patch) {
      try {
        await this.api.patch(RESOURCES.events, c.namespace, c.name, 'merge', { count: c.count, lastTimestamp: now, message: c.message });
        this.correlator.observe(c, c.name, c.count);
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    const m = obj.metadata;
    const created = await this.api.create(RESOURCES.events, c.namespace, {
      apiVersion: 'v1', kind: 'Event',
      metadata: { name: c.name, namespace: c.namespace },
      involvedObject: { kind: obj.kind, namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: obj.apiVersion, resourceVersion: m.resourceVersion },
      reason, message: c.message, type,
      source: { component: this.component },
      firstTimestamp: kubeTime(c.firstTimestamp), lastTimestamp: now, count: c.count,
      reportingComponent: this.component, reportingInstance: this.host,
    });
    this.correlator.observe(c, created.metadata.name ?? c.name, c.count);
  }
}
