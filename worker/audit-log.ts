// Front door: GET /_edgeplane/audit, the audit events this isolate kept (AUDIT_BUFFER_BYTES), for whoever RBAC
// allows `get` on that non-resource URL (cluster-admin; grant others a ClusterRole with
// nonResourceURLs: ["/_edgeplane/audit"]). An audit.k8s.io/v1 EventList, oldest first; `?since=N` returns the events
// after the one numbered N (metadata.resourceVersion of the previous answer), `?since=<RFC 3339 time>` those stamped
// at or after it, and `?limit=` caps the page (default 500, at most 5,000).

import { Hono } from 'hono';
import type { AppEnv } from './env';
import { badRequest, statusResponse } from '../core/status';
import { microTime } from '../core/audit/event';
import { auditBuffer, flushAudit } from './audit-sink';

export const AUDIT_PATH = '/_edgeplane/audit';
const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 5000;

export const auditLog = new Hono<AppEnv>();

auditLog.get(AUDIT_PATH, (c) => {
  const q = new URL(c.req.url).searchParams;
  const since = q.get('since') ?? '';
  const limitText = q.get('limit') ?? '';
  const limit = limitText === '' ? DEFAULT_LIMIT : Number(limitText);
  if (!/^\d{1,6}$/.test(limitText || '0') || limit < 0) return statusResponse(badRequest(`limit must be a whole number, not ${JSON.stringify(limitText)}`));
  let from: { seq?: number; time?: string } = {};
  if (/^\d{1,15}$/.test(since)) from = { seq: Number(since) };
  else if (since !== '') {
    const ms = since.length <= 64 ? Date.parse(since) : NaN;
    if (Number.isNaN(ms)) return statusResponse(badRequest(`since must be an event number or an RFC 3339 time, not ${JSON.stringify(since.slice(0, 64))}`));
    from = { time: microTime(ms) };
  }
  flushAudit();
  const page = auditBuffer().read(from, Math.min(limit || DEFAULT_LIMIT, MAX_LIMIT));
  // The kept lines are already JSON: the list is assembled around them rather than parsed and written again.
  const body = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{"resourceVersion":"${page.last}"},"items":[${page.lines.join(',')}]}`;
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
});
