// Front door: where this isolate's audit events go. A request only queues its events (core/audit/buffer.ts); one
// flush per turn of the event loop, after the response has left, serializes them to the console (AUDIT_LOG_CONSOLE:
// one JSON line per event, which Workers Logpush and `wrangler tail` collect — kube's log backend in its JSON
// format) and to a ring read back by GET /_edgeplane/audit. Everything is per isolate: locally one workerd isolate
// runs the Worker and every Durable Object, so the ring holds every request's events, the controllers' included;
// deployed, each isolate keeps its own and Logpush is the complete record.

import { AuditBuffer, type AuditLimits } from '../core/audit/buffer';
import { estimateBytes, type AuditEvent } from '../core/audit/event';
import { parsePolicy, PolicyEvaluator } from '../core/audit/policy';
import { DEFAULT_AUDIT_POLICY } from '../core/audit/default-policy';
import { settingsOf } from '../core/settings';

export interface AuditConfig {
  evaluator: PolicyEvaluator | undefined; // undefined: the policy is invalid (problems says why)
  problems: string[];
  limits: AuditLimits;
  console: boolean;
}

const buffer = new AuditBuffer();
let cached: { key: string; config: AuditConfig } | undefined;
let compiled: { text: string; evaluator: PolicyEvaluator | undefined; problems: string[] } | undefined;

const AUDIT_SETTINGS = ['AUDIT_POLICY', 'AUDIT_LOG_CONSOLE', 'AUDIT_BUFFER_BYTES', 'AUDIT_QUEUE_BYTES', 'AUDIT_MAX_EVENT_BYTES'];

/**
 * This isolate's audit settings, read through the settings table and kept while the five raw values stay the same
 * (comparing them costs a few property reads; parsing the table costs ~15 µs, which every request would pay).
 */
export function auditConfig(env: object): AuditConfig {
  const raw = env as Record<string, unknown>;
  const key = AUDIT_SETTINGS.map((k) => String(raw[k] ?? '')).join('\u0000');
  if (cached?.key === key) return cached.config;
  const { settings } = settingsOf(env);
  const text = settings.auditPolicy || DEFAULT_AUDIT_POLICY;
  if (compiled?.text !== text) {
    const parsed = parsePolicy(text);
    if (parsed.ok && parsed.warnings.length) console.error(`AUDIT_POLICY: ignoring ${parsed.warnings.join(', ')}`);
    compiled = parsed.ok ? { text, evaluator: new PolicyEvaluator(parsed.policy), problems: [] } : { text, evaluator: undefined, problems: parsed.problems };
  }
  const config: AuditConfig = {
    evaluator: compiled.evaluator,
    problems: compiled.problems,
    limits: { queueBytes: settings.auditQueueBytes, ringBytes: settings.auditBufferBytes, maxEventBytes: settings.auditMaxEventBytes },
    console: settings.auditLogConsole,
  };
  cached = { key, config };
  return config;
}

let flushing: { at: number } | undefined; // a flush is scheduled (since `at`)
let keptAliveAt = -Infinity;
let lastConfig: AuditConfig | undefined;

// A flush waits for the next turn of the event loop, so the response leaves first. Keeping the isolate alive for it
// (waitUntil) costs workerd far more than the flush itself (measured: ~300 µs of CPU per request when every request
// asked), so it is asked at most every KEEP_ALIVE_MS; between, the timer of a request that has finished may be
// dropped with it, and the next event (or a flush scheduled longer than STALE_MS ago) schedules another.
const KEEP_ALIVE_MS = 100;
const STALE_MS = 1000;

/** Queues one event (dropped and counted when the queue is full) and makes sure a flush follows. */
export function emitAuditEvent(cfg: AuditConfig, ev: AuditEvent, objectBytes: number, waitUntil: ((p: Promise<unknown>) => void) | undefined): void {
  if (!buffer.enqueue(ev, estimateBytes(ev, objectBytes), cfg.limits)) return;
  lastConfig = cfg;
  const now = Date.now();
  if (flushing && now - flushing.at < STALE_MS) return;
  const scheduled = { at: now };
  flushing = scheduled;
  const done = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
    if (flushing === scheduled) flushing = undefined;
    flushAudit();
  });
  if (now - keptAliveAt < KEEP_ALIVE_MS) return;
  keptAliveAt = now;
  try {
    waitUntil?.(done);
  } catch {
    // no execution context: the timer still runs while the isolate does
  }
}

/** Writes every queued event now (the read-back endpoint calls this first, so it sees all finished requests). */
export function flushAudit(): void {
  const cfg = lastConfig;
  if (!cfg || buffer.queued === 0) return;
  buffer.flush(cfg.limits, cfg.console ? (line) => console.log(line) : undefined);
}

/** The ring and counters, for the endpoint and /metrics. */
export function auditBuffer(): AuditBuffer {
  return buffer;
}
