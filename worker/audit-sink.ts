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
import { parseSettings } from '../core/settings';

export interface AuditConfig {
  evaluator: PolicyEvaluator | undefined; // undefined: the policy is invalid (problems says why)
  problems: string[];
  limits: AuditLimits;
  console: boolean;
}

const buffer = new AuditBuffer();
const configs = new WeakMap<object, AuditConfig>();
let compiled: { text: string; evaluator: PolicyEvaluator | undefined; problems: string[] } | undefined;

/** This isolate's audit settings, read once per environment object through the settings table. */
export function auditConfig(env: object): AuditConfig {
  let cfg = configs.get(env);
  if (cfg) return cfg;
  const { settings } = parseSettings(env);
  const text = settings.auditPolicy || DEFAULT_AUDIT_POLICY;
  if (compiled?.text !== text) {
    const parsed = parsePolicy(text);
    if (parsed.ok && parsed.warnings.length) console.error(`AUDIT_POLICY: ignoring ${parsed.warnings.join(', ')}`);
    compiled = parsed.ok ? { text, evaluator: new PolicyEvaluator(parsed.policy), problems: [] } : { text, evaluator: undefined, problems: parsed.problems };
  }
  cfg = {
    evaluator: compiled.evaluator,
    problems: compiled.problems,
    limits: { queueBytes: settings.auditQueueBytes, ringBytes: settings.auditBufferBytes, maxEventBytes: settings.auditMaxEventBytes },
    console: settings.auditLogConsole,
  };
  configs.set(env, cfg);
  return cfg;
}

let flushing: Promise<void> | undefined;
let lastConfig: AuditConfig | undefined;

/**
 * Queues one event (dropped and counted when the queue is full) and makes sure a flush follows. `waitUntil` keeps
 * the isolate alive for that flush once the response is out.
 */
export function emitAuditEvent(cfg: AuditConfig, ev: AuditEvent, objectBytes: number, waitUntil: ((p: Promise<unknown>) => void) | undefined): void {
  if (!buffer.enqueue(ev, estimateBytes(ev, objectBytes), cfg.limits)) return;
  lastConfig = cfg;
  if (flushing) return;
  flushing = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
    flushing = undefined;
    flushAudit();
  });
  try {
    waitUntil?.(flushing);
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
