// Controllers: client-go's EventCorrelator (tools/record/events_cache.go), which stands between every event
// recorder and the API: it aggregates similar events (the 10th distinct message with the same source, object,
// type and reason within 10 minutes turns into one "(combined from similar events): …" event), deduplicates
// repeats (the same event again patches the first one's count and lastTimestamp instead of creating
// another), and filters spam (a token bucket per source, object and type: 25 events, then one per
// 5 minutes). Like client-go's, the count of a repeat that the spam filter drops is still counted, so the
// next write that gets through carries it. Pure: time comes from the caller.
//
// Each cache is bounded like client-go's LRUs (4096 keys) and in bytes as well: keys are hashed to a fixed
// width (they hold messages, which can be long), and each entry is charged for what it holds.

import { ByteLru } from '../core/byte-lru';
import { fnv1a64Hex } from '../core/hash';
import { TokenBuckets } from '../core/rate-limit';

export const MAX_LRU_ENTRIES = 4096; // maxLruCacheEntries
export const AGGREGATE_MAX_EVENTS = 10; // defaultAggregateMaxEvents
export const AGGREGATE_INTERVAL_MS = 600_000; // defaultAggregateIntervalInSeconds
export const SPAM_BURST = 25; // defaultSpamBurst
export const SPAM_QPS = 1 / 300; // defaultSpamQPS: one event per 5 minutes
export const COMBINED_PREFIX = '(combined from similar events): ';

// Per-entry charges beyond the 16-character hashed key: an observation holds an event name (object name,
// a dot and 16 hex digits) and a namespace; an aggregate record holds up to 10 message hashes.
const OBSERVATION_BYTES = 640;
const AGGREGATE_BYTES = 10 * 48 + 64;
const KEY_BYTES = 16 * 2;
const lruBudget = (valueBytes: number) => MAX_LRU_ENTRIES * (KEY_BYTES + 96 + valueBytes);

export interface EventIdentity {
  component: string; // source.component
  host: string; // source.host
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  fieldPath?: string;
  type: string;
  reason: string;
}

/** What to write: create `name` with `count` 1 (or a higher count if the first write was lost), or patch it. */
export interface Correlated {
  name: string;
  namespace: string;
  message: string;
  count: number;
  firstTimestamp: number; // ms
  patch: boolean; // an earlier occurrence exists: patch count, lastTimestamp and message
  key: string; // the dedup key, for observe() after the write
}

interface Observation {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: number;
}

interface AggregateRecord {
  messages: Set<string>; // hashes of the distinct messages seen, fewer than AGGREGATE_MAX_EVENTS
  lastTimestamp: number;
}

const join = (parts: (string | undefined)[]) => fnv1a64Hex(parts.map((p) => p ?? '').join('\u0000'));

export class EventCorrelator {
  private readonly aggregates = new ByteLru<AggregateRecord>(lruBudget(AGGREGATE_BYTES), AGGREGATE_BYTES);
  private readonly observations = new ByteLru<Observation>(lruBudget(OBSERVATION_BYTES), OBSERVATION_BYTES);
  private readonly spam = new TokenBuckets(lruBudget(48));

  /**
   * EventCorrelate: aggregate, observe (dedup), then filter. Answers what to write, or undefined when the spam
   * filter drops it. `newName` names a first occurrence (client-go: <object name>.<unix nanos in hex>).
   */
  correlate(e: EventIdentity, namespace: string, message: string, at: number, newName: () => string): Correlated | undefined {
    // EventAggregatorByReasonFunc: everything but the message (reportingController/Instance are the source here).
    const aggregateKey = join([e.component, e.host, e.kind, e.namespace, e.name, e.uid, e.apiVersion, e.type, e.reason, e.component, e.host]);
    let key = join([e.component, e.host, e.kind, e.namespace, e.name, e.fieldPath, e.uid, e.apiVersion, e.type, e.reason, message]);
    let record = this.aggregates.get(aggregateKey);
    if (!record || at - record.lastTimestamp > AGGREGATE_INTERVAL_MS) record = { messages: new Set(), lastTimestamp: at };
    record.messages.add(fnv1a64Hex(message));
    record.lastTimestamp = at;
    this.aggregates.set(aggregateKey, record);
    if (record.messages.size >= AGGREGATE_MAX_EVENTS) {
      // Do not grow the set any larger (PopAny), and count every later similar event on one combined event.
      record.messages.delete(record.messages.values().next().value!);
      message = COMBINED_PREFIX + message;
      key = aggregateKey;
    }
    // eventObserve: a repeat takes the first occurrence's name and counts on.
    const last = this.observations.get(key);
    const observed: Correlated = last
      ? { name: last.name, namespace: last.namespace, message, count: last.count + 1, firstTimestamp: last.firstTimestamp, patch: true, key }
      : { name: newName(), namespace, message, count: 1, firstTimestamp: at, patch: false, key };
    this.observations.set(key, { name: observed.name, namespace: observed.namespace, count: observed.count, firstTimestamp: observed.firstTimestamp });
    // EventSourceObjectSpamFilter (getSpamKey: source, object and type).
    const spamKey = join([e.component, e.host, e.kind, e.namespace, e.name, e.uid, e.apiVersion, e.type]);
    if (this.spam.take(spamKey, at, SPAM_QPS, SPAM_BURST) > 0) return undefined;
    return observed;
  }

  /** updateState: what the server holds after a write (a create that replaced a vanished event restarts there). */
  observe(c: Correlated, name: string, count: number): void {
    const now = this.observations.get(c.key);
    if (now && now.name === name && now.count >= count) return; // repeats counted meanwhile: keep their count
    this.observations.set(c.key, { name, namespace: c.namespace, count, firstTimestamp: c.firstTimestamp });
  }
}
