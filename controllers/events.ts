// Controllers: a core/v1 event recorder (client-go tools/record). Events are written in the background;
// a repeat of the same source/object/type/reason/message (events_cache.go getEventKey) patches the first
// event's count and lastTimestamp instead of creating another (EventCorrelator's dedup; the LRU is
// bounded like client-go's 4096 keys), and a 404 on that patch creates the event anew. From the 10th
// distinct message with the same source/object/type/reason within 10 minutes, events are combined into one
// "(combined from similar events): <latest message>" event that counts on (EventAggregator). The spam
// filter (token bucket per object) is not reproduced.

import type { KubeObject } from '../client/types';
import { isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

const MAX_KEYS = 4096;
export const AGGREGATE_MAX_EVENTS = 10; // defaultAggregateMaxEvents
export const AGGREGATE_INTERVAL_MS = 600_000; // defaultAggregateIntervalInSeconds
export const COMBINED_PREFIX = '(combined from similar events): ';

interface Aggregate {
  messages: Set<string>; // distinct messages seen, at most AGGREGATE_MAX_EVENTS (the 10th combines)
  lastAt: number;
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
}

/** Second-precision RFC 3339, as metav1.Time serializes. */
export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export class ApiEventRecorder implements EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private readonly aggregates = new Map<string, Aggregate>();
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly api: Api, private readonly component: string, private readonly clock: Clock, private readonly host = 'edgeplane') {}

  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const at = this.clock.now(); // when it happened, not when the write gets its turn
    this.chain = this.chain.then(() => this.write(obj, type, reason, message, at)).catch((e) => {
      const code = (e as { code?: number }).code;
      if (code === 403 || code === 404) return; // the namespace is going or gone
      console.error(`${this.component}: event ${reason} not written: ${(e as Error).message}`);
    });
  }

  /** Resolves once every event recorded so far is written (tests, shutdown). */
  flush(): Promise<void> {
    return this.chain;
  }

  private async write(obj: KubeObject, type: EventType, reason: string, message: string, at: number): Promise<void> {
    const m = obj.metadata;
    const namespace = m.namespace || 'default';
    const involved = {
      kind: obj.kind, namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: obj.apiVersion, resourceVersion: m.resourceVersion,
    };
    const aggregateKey = [this.component, this.host, involved.kind, namespace, involved.name, involved.uid, involved.apiVersion, type, reason].join('\u0000');
    let key = `${aggregateKey}\u0000${message}`;
    const now = kubeTime(at);
    // EventAggregate: past the threshold of distinct messages, one combined event carries on.
    let agg = this.aggregates.get(aggregateKey);
    if (!agg || at - agg.lastAt > AGGREGATE_INTERVAL_MS) agg = { messages: new Set(), lastAt: at };
    this.aggregates.delete(aggregateKey);
    this.aggregates.set(aggregateKey, agg);
    if (this.aggregates.size > MAX_KEYS) this.aggregates.delete(this.aggregates.keys().next().value!);
    agg.lastAt = at;
    agg.messages.add(message);
    if (agg.messages.size > AGGREGATE_MAX_EVENTS) agg.messages.delete(agg.messages.values().next().value!);
    if (agg.messages.size >= AGGREGATE_MAX_EVENTS) {
      message = COMBINED_PREFIX + message;
      key = aggregateKey;
    }
    const prior = this.seen.get(key);
    if (prior) {
      this.seen.delete(key); // LRU: move to the newest end
      this.seen.set(key, prior);
      prior.count++;
      try {
        await this.api.patch(RESOURCES.events, prior.namespace, prior.name, 'merge', { count: prior.count, lastTimestamp: now, message });
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    const name = `${m.name}.${(BigInt(at) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6))).toString(16)}`;
    await this.api.create(RESOURCES.events, namespace, {
      apiVersion: 'v1', kind: 'Event',
      metadata: { name, namespace },
      involvedObject: involved,
      reason, message, type,
      source: { component: this.component },
      firstTimestamp: now, lastTimestamp: now, count: 1,
      reportingComponent: this.component, reportingInstance: this.host,
    });
    this.seen.set(key, { name, namespace, count: 1 });
    if (this.seen.size > MAX_KEYS) this.seen.delete(this.seen.keys().next().value!);
  }
}
