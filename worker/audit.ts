// Front door: the audit log, as kube-apiserver's audit filters write it (apiserver pkg/endpoints/filters/
// audit_init.go, audit.go, authn_audit.go). In the middleware order that kube's handler chain has:
//   auditInit (every request gets an Audit-Id, echoed in the response) → authentication (a failure is recorded
//   here as one ResponseStarted event) → audit (the policy decides the level from the *authenticated* user and
//   the request; RequestReceived) → impersonation and authorization (record the impersonated user and the
//   decision) → the handler → ResponseStarted for watches, then ResponseComplete (or Panic for an unhandled error).
// Bodies are captured only at Request (request) and RequestResponse (response) levels, bounded by
// AUDIT_MAX_EVENT_BYTES; at Metadata an event holds who, what and the outcome, never an object's data.

import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './env';
import { atLeast, type AuditAttributes, type RequestAuditConfig, type Stage } from '../core/audit/policy';
import {
  atStage, auditUser, DECISION_ANNOTATION, microTime, REASON_ANNOTATION, responseStatus, sourceIPs, truncateUserAgent, type AuditEvent,
} from '../core/audit/event';
import { parseResourcePath } from '../core/request-info';
import { queryBool } from '../core/query-bool';
import { serviceUnavailable, StatusError, statusResponse, type Status } from '../core/status';
import type { UserInfo } from '../core/rbac/authorize';
import { resourceAttributes } from '../core/rbac/request-attributes';
import { auditConfig, emitAuditEvent, type AuditConfig } from './audit-sink';
import { decodeBody } from './request-body';
import { bodyRead, readCapped } from './body';
import { requestUrl } from './request-url';
import { yamlToJson } from '../core/encoding/yaml-decode';

/** What the audit filters keep for one request (in the context variable `audit`). */
export interface AuditState {
  id: string;
  receivedMs: number;
  event?: AuditEvent; // set once the policy says the request is audited
  config?: RequestAuditConfig;
  sink?: AuditConfig;
}

const MAX_AUDIT_ID = 128;
// Enough of a create's body to read the name it asks for (LogRequestObject fills objectRef.name from it).
const NAME_PROBE_BYTES = 64 * 1024;

/** WithAuditInit: the client's Audit-ID (when of a sane length) or a new UUID, echoed as the Audit-Id header. */
export const auditInit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header('audit-id');
  const id = given && given.length <= MAX_AUDIT_ID ? given : crypto.randomUUID();
  c.set('audit', { id, receivedMs: Date.now() });
  await next();
  setHeader(c, 'Audit-Id', id);
};

function setHeader(c: Context<AppEnv>, name: string, value: string): void {
  const res = c.res;
  if (res.status === 101) return; // a WebSocket handshake is the platform's to answer
  try {
    res.headers.set(name, value);
  } catch {
    // Headers of a response fetched from a Durable Object are immutable: copy it.
    c.res = undefined;
    c.res = new Response(res.body, res);
    c.res.headers.set(name, value);
  }
}

/** GetAuthorizerAttributes for the policy: the request as requestinfo.go sees it, and the user authenticated. */
function attributesOf(c: Context<AppEnv>, url: URL, user: UserInfo | undefined): AuditAttributes & { apiVersion: string } {
  const info = parseResourcePath(c.req.method, url.pathname, queryBool(url.searchParams, 'watch'));
  const who = user ? { username: user.username, groups: user.groups } : undefined;
  if (!info) return { user: who, verb: c.req.method.toLowerCase(), resourceRequest: false, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', path: url.pathname, apiVersion: '' };
  return { ...resourceAttributes(info), user: who, apiVersion: info.version };
}

function newEvent(c: Context<AppEnv>, state: AuditState, level: RequestAuditConfig['level'], url: URL, attrs: AuditAttributes & { apiVersion: string }, user: UserInfo | undefined): AuditEvent {
  const h = c.req.raw.headers;
  const ev = {
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level, auditID: state.id, stage: 'RequestReceived',
    requestURI: `${url.pathname}${url.search}`, verb: attrs.verb, user: auditUser(user),
  } as AuditEvent;
  // The connection's own address: on Workers the platform's CF-Connecting-IP; locally the listener's (LOCAL_PEER_ADDRESS).
  const ips = sourceIPs(h.get('x-forwarded-for'), h.get('x-real-ip'), h.get('cf-connecting-ip') ?? (c.get('settings').localPeerAddress || null));
  if (ips.length) ev.sourceIPs = ips;
  const ua = h.get('user-agent');
  if (ua) ev.userAgent = truncateUserAgent(ua);
  if (attrs.resourceRequest) {
    ev.objectRef = {
      resource: attrs.resource, namespace: attrs.namespace, name: attrs.name, apiGroup: attrs.apiGroup, apiVersion: attrs.apiVersion, subresource: attrs.subresource,
    };
  }
  ev.requestReceivedTimestamp = microTime(state.receivedMs);
  return ev;
}

function waitUntilOf(c: Context<AppEnv>): ((p: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (p) => ctx.waitUntil(p);
  } catch {
    return undefined;
  }
}

function emit(c: Context<AppEnv>, state: AuditState, stage: Stage, objectBytes = 0): void {
  if (!state.event || !state.config || !state.sink || state.config.omitStages.has(stage)) return;
  emitAuditEvent(state.sink, atStage(state.event, stage, Date.now()), objectBytes, waitUntilOf(c));
}

/** WithFailedAuthenticationAudit: a request whose credentials did not authenticate, as one ResponseStarted event. */
export function auditFailedAuthentication(c: Context<AppEnv>): void {
  const state = c.get('audit');
  if (!state) return;
  const sink = auditConfig(c.env);
  if (!sink.evaluator) return;
  const url = requestUrl(c.req.raw);
  const attrs = attributesOf(c, url, undefined);
  const config = sink.evaluator.evaluate(attrs);
  if (config.level === 'None') return;
  const ev = newEvent(c, state, config.level, url, attrs, undefined);
  ev.responseStatus = { metadata: {}, message: authMethods(c), code: 401 } as AuditEvent['responseStatus'];
  Object.assign(state, { event: ev, config, sink });
  emit(c, state, 'ResponseStarted');
}

// authn_audit.go getAuthMethods, for the credentials this server reads.
function authMethods(c: Context<AppEnv>): string {
  const methods: string[] = [];
  const auth = (c.req.header('authorization') ?? '').trim().split(' ');
  if (auth.length > 1 && auth[0].toLowerCase() === 'bearer') methods.push('bearer');
  if (new URL(c.req.url).searchParams.get('access_token')?.trim()) methods.push('access_token');
  return methods.length ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

/** The authorizer's decision, as WithAuthorization annotates the event. */
export function auditDecision(c: Context<AppEnv>, allowed: boolean, reason: string): void {
  const ev = c.get('audit')?.event;
  if (!ev) return;
  ev.annotations = { ...ev.annotations, [DECISION_ANNOTATION]: allowed ? 'allow' : 'forbid', [REASON_ANNOTATION]: reason };
}

/** LogImpersonatedUser. */
export function auditImpersonation(c: Context<AppEnv>, user: UserInfo): void {
  const ev = c.get('audit')?.event;
  if (ev) ev.impersonatedUser = auditUser(user);
}

/** WithAudit: decides the level, records the stages, and captures bodies where the level asks for them. */
export const audit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const state = c.get('audit');
  const sink = auditConfig(c.env);
  if (!sink.evaluator) {
    // kube-apiserver does not start with a policy it cannot load: refuse to serve, naming the setting.
    return statusResponse(serviceUnavailable(`edgeplane is not configured: AUDIT_POLICY: ${sink.problems.join('; ')}`));
  }
  if (!state) return next();
  const url = requestUrl(c.req.raw);
  const user = c.get('user');
  const attrs = attributesOf(c, url, user);
  const config = sink.evaluator.evaluate(attrs);
  if (config.level === 'None') return next();
  const ev = newEvent(c, state, config.level, url, attrs, user);
  Object.assign(state, { event: ev, config, sink });
  emit(c, state, 'RequestReceived');

  const withBody = c.req.method !== 'GET' && c.req.method !== 'HEAD';
  const wantsRequest = atLeast(config.level, 'Request');
  const probeName = attrs.verb === 'create' && !attrs.name && !attrs.subresource;

  await next();

  const err = c.error;
  if (err && !(err instanceof StatusError)) {
    // An unhandled error: kube's Panic stage, with the Status its panic recovery reports.
    ev.responseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${err.message}`, reason: 'InternalError', code: 500 } as AuditEvent['responseStatus'];
    emit(c, state, 'Panic');
    return;
  }
  const res = c.res;
  // The body as the handler read it (worker/body.ts), when it did; at most the event's cap.
  const cap = wantsRequest ? sink.limits.maxEventBytes : NAME_PROBE_BYTES;
  const read = withBody && (wantsRequest || probeName) ? bodyRead(c.req.raw) : undefined;
  const requestBytes = read && read.byteLength > 0 && read.byteLength <= cap ? read : undefined;
  let objectBytes = 0;
  if (requestBytes !== undefined) {
    const body = requestObject(c, requestBytes);
    if (body !== undefined) {
      if (attrs.verb === 'create' || attrs.verb === 'update') fillObjectRef(ev, body);
      if (wantsRequest) {
        ev.requestObject = body;
        objectBytes += requestBytes.byteLength * 2;
      }
    }
  }
  const isJson = (res.headers.get('content-type') ?? '').startsWith('application/json');
  const watch = attrs.verb === 'watch';
  let responseBody: unknown;
  if (isJson && !watch && (res.status >= 400 || attrs.verb === 'delete' || config.level === 'RequestResponse')) {
    const cap = config.level === 'RequestResponse' ? sink.limits.maxEventBytes : NAME_PROBE_BYTES;
    const text = await readCapped(res.clone(), cap);
    if (text !== undefined) {
      responseBody = parseJson(text);
      if (config.level === 'RequestResponse' && responseBody !== undefined) {
        ev.responseObject = responseBody;
        objectBytes += text.length * 2;
      }
    }
  }
  ev.responseStatus = responseStatus(res.status, responseBody as Partial<Status> | undefined);
  if (!watch) {
    emit(c, state, 'ResponseComplete', objectBytes);
    return;
  }
  // A long-running request: ResponseStarted as its answer starts, ResponseComplete when its stream ends (a
  // WebSocket is handed to the platform with its handshake, so its ResponseComplete follows at once).
  emit(c, state, 'ResponseStarted');
  if (res.status !== 200 || !res.body) {
    emit(c, state, 'ResponseComplete');
    return;
  }
  const pipe = new IdentityTransformStream();
  const done = res.body.pipeTo(pipe.writable).catch(() => undefined).then(() => emit(c, state, 'ResponseComplete'));
  waitUntilOf(c)?.(done);
  c.res = undefined;
  c.res = new Response(pipe.readable, res);
};


// The body a create or update handler decoded to JSON text (worker/handlers/write.ts), parsed at most once for
// whoever reads it first: admission's ServiceAccount lookup or this filter. This filter parsed every create's body a
// second time for its name (bench/profile.ts writes-64: TextDecoder and JSON.parse here were 3.8% of the isolate).
const decodedBodies = new WeakMap<Request, { text: string; object?: { value: unknown } }>();

/** Records `text`, the JSON the handler decoded `req`'s body to (create and update; not a patch, which is sent raw). */
export function rememberDecodedBody(req: Request, text: string): void {
  decodedBodies.set(req, { text });
}

/**
 * JSON.parse of `text` (undefined if it is not JSON); when `text` is the body recorded for `req`, parsed once for
 * every reader. (A mutating webhook's patched body is another text: parsed on its own.)
 */
export function decodedBodyObject(req: Request, text: string): unknown {
  const known = decodedBodies.get(req);
  if (!known || known.text !== text) return parseJson(text);
  known.object ??= { value: parseJson(known.text) };
  return known.object.value;
}

/** The request object as JSON, decoded as the handler decodes it: JSON, YAML or protobuf; a patch as sent. */
function requestObject(c: Context<AppEnv>, bytes: Uint8Array): unknown {
  // The same bytes decode to the same text the handler recorded (worker/request-body.ts decodeBody): parse that once.
  const known = decodedBodies.get(c.req.raw);
  if (known) return decodedBodyObject(c.req.raw, known.text);
  const contentType = c.req.header('content-type') ?? '';
  const media = contentType.split(';')[0].trim().toLowerCase();
  try {
    if (media === 'application/vnd.kubernetes.protobuf' || media === 'application/yaml') return parseJson(decodeBody(contentType, bytes));
    const text = new TextDecoder().decode(bytes);
    const json = parseJson(text);
    if (json === undefined && media === 'application/apply-patch+yaml') return parseJson(yamlToJson(text, ''));
    return json;
  } catch {
    return undefined;
  }
}

// LogRequestObject: the object's name, namespace, uid and resourceVersion fill what the URL left empty.
function fillObjectRef(ev: AuditEvent, body: unknown): void {
  const meta = (body as { metadata?: Record<string, unknown> } | undefined)?.metadata;
  if (!ev.objectRef || !meta || typeof meta !== 'object') return;
  for (const [field, key] of [['name', 'name'], ['namespace', 'namespace'], ['uid', 'uid'], ['resourceVersion', 'resourceVersion']] as const) {
    if (!ev.objectRef[field] && typeof meta[key] === 'string') ev.objectRef[field] = meta[key] as string;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

