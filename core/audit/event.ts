// Core: audit.k8s.io/v1 Events as kube-apiserver writes them (apiserver pkg/audit/request.go LogRequestMetadata,
// LogImpersonatedUser, LogResponseObject; filters/audit.go for the stages; plugin/pkg/audit/truncate for the size
// limit). Fields are emitted in the Go struct's order, times as metav1.MicroTime, empty fields left out as the
// struct's omitempty tags say.

import type { Level, Stage } from './policy';
import type { Status } from '../status';

/** authentication/v1 UserInfo (every field omitempty). */
export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** metav1.Status as LogResponseObject copies it: code always, the rest only for an error's Status. */
export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

export const TRUNCATED_ANNOTATION = 'audit.k8s.io/truncated';
export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';

/** metav1.MicroTime: RFC 3339 with six fractional digits, UTC. */
export function microTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000Z`;
}

/** A user as the event records it (LogRequestMetadata / LogImpersonatedUser): empty fields omitted. */
export function auditUser(u: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } | undefined): AuditUser {
  if (!u) return {};
  const out: AuditUser = {};
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups?.length) out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

const MAX_USER_AGENT = 1024;

/** maybeTruncateUserAgent: at most 1024 characters, then "...TRUNCATED". */
export function truncateUserAgent(ua: string): string {
  return ua.length > MAX_USER_AGENT ? `${ua.slice(0, MAX_USER_AGENT)}...TRUNCATED` : ua;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const IPV6 = /^[0-9a-fA-F:.]{2,45}$/; // anchored character class: linear

function parseIP(s: string): string | undefined {
  const v4 = IPV4.exec(s);
  if (v4) return v4.slice(1).every((o) => Number(o) <= 255) ? v4.slice(1).map(Number).join('.') : undefined;
  return s.includes(':') && IPV6.test(s) ? s.toLowerCase() : undefined;
}

// Enough for any real proxy chain; a forged header of thousands of addresses records only these.
const MAX_SOURCE_IPS = 16;

/**
 * utilnet.SourceIPs: every valid address of X-Forwarded-For, then X-Real-Ip unless already there, then the address
 * the connection came from (on Workers, CF-Connecting-IP, which the platform sets) unless it is the last one.
 */
export function sourceIPs(forwardedFor: string | null, realIP: string | null, remote: string | null): string[] {
  const ips: string[] = [];
  for (const part of (forwardedFor ?? '').split(',')) {
    if (ips.length >= MAX_SOURCE_IPS) break;
    const ip = parseIP(part.trim());
    if (ip) ips.push(ip);
  }
  const real = realIP ? parseIP(realIP.trim()) : undefined;
  if (real && !ips.includes(real)) ips.push(real);
  const r = remote ? parseIP(remote.trim()) : undefined;
  if (r && ips[ips.length - 1] !== r) ips.push(r);
  return ips;
}

/** The event's response status: the answer's Status when it is one (errors), else its code alone. */
export function responseStatus(code: number, status?: Partial<Status>): ResponseStatus {
  const out: ResponseStatus = { metadata: {} } as ResponseStatus;
  if (status && status.kind === 'Status') {
    if (status.status) out.status = status.status;
    if (status.message) out.message = status.message;
    if (status.reason) out.reason = status.reason;
    if (status.details) out.details = status.details;
  }
  out.code = status?.code ?? code;
  return out;
}

/**
 * The event at `stage`, stamped (RequestReceived carries the receive time), as a new object with the fields in the
 * Go struct's order (later stages fill fields in as they become known) and the annotations copied as they are now.
 */
export function atStage(ev: AuditEvent, stage: Stage, nowMs: number): AuditEvent {
  const out = {
    kind: ev.kind, apiVersion: ev.apiVersion, level: ev.level, auditID: ev.auditID, stage, requestURI: ev.requestURI, verb: ev.verb, user: ev.user,
  } as AuditEvent;
  if (ev.impersonatedUser) out.impersonatedUser = ev.impersonatedUser;
  if (ev.sourceIPs?.length) out.sourceIPs = ev.sourceIPs;
  if (ev.userAgent) out.userAgent = ev.userAgent;
  if (ev.objectRef) out.objectRef = orderedRef(ev.objectRef);
  if (ev.responseStatus) out.responseStatus = { ...ev.responseStatus };
  if (ev.requestObject !== undefined) out.requestObject = ev.requestObject;
  if (ev.responseObject !== undefined) out.responseObject = ev.responseObject;
  out.requestReceivedTimestamp = ev.requestReceivedTimestamp;
  out.stageTimestamp = stage === 'RequestReceived' ? ev.requestReceivedTimestamp : microTime(nowMs);
  if (ev.annotations && Object.keys(ev.annotations).length) out.annotations = { ...ev.annotations };
  return out;
}

const REF_FIELDS = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const;

function orderedRef(r: ObjectReference): ObjectReference {
  const out: ObjectReference = {};
  for (const f of REF_FIELDS) if (r[f]) out[f] = r[f];
  return out;
}

/** An estimate of the event's JSON size, without serializing it: enough to bound a queue of events in bytes. */
export function estimateBytes(ev: AuditEvent, objectBytes: number): number {
  let n = 400 + ev.requestURI.length + (ev.userAgent?.length ?? 0) + ev.auditID.length + objectBytes;
  for (const u of [ev.user, ev.impersonatedUser]) {
    if (!u) continue;
    n += (u.username?.length ?? 0) + (u.uid?.length ?? 0);
    for (const g of u.groups ?? []) n += g.length + 3;
    for (const [k, vs] of Object.entries(u.extra ?? {})) n += k.length + vs.reduce((a, v) => a + v.length + 3, 0);
  }
  for (const [k, v] of Object.entries(ev.annotations ?? {})) n += k.length + v.length + 6;
  if (ev.responseStatus?.message) n += ev.responseStatus.message.length;
  return 2 * n; // UTF-16
}

/**
 * One JSON line for the event, at most `maxBytes` long (plugin/pkg/audit/truncate): too long, the request and
 * response objects are dropped and audit.k8s.io/truncated is set; still too long, nothing (the caller counts it).
 */
export function serializeEvent(ev: AuditEvent, maxBytes: number): { line: string; truncated: boolean } | undefined {
  const line = JSON.stringify(ev);
  if (line.length <= maxBytes) return { line, truncated: false };
  if (ev.requestObject === undefined && ev.responseObject === undefined) return undefined;
  const smaller: AuditEvent = { ...ev, annotations: { ...ev.annotations, [TRUNCATED_ANNOTATION]: 'true' } };
  delete smaller.requestObject;
  delete smaller.responseObject;
  const again = JSON.stringify(smaller);
  return again.length <= maxBytes ? { line: again, truncated: true } : undefined;
}
