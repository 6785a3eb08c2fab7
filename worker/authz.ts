// Front door: impersonation, flow control (worker/flowcontrol.ts), rate limiting and authorization, before anything reaches a store. Every request,
// watches included, is decided by the (effective) user's authorizer shard in one call — the `impersonate` checks of
// an impersonating request ride in the same call — and denials are kube-apiserver's 403.

import type { Context, MiddlewareHandler } from 'hono';
import { parseResourcePath, type ResourceRequest } from '../core/request-info';
import type { RequestAttributes } from '../core/rbac/rules';
import { groupResource } from '../core/registry';
import { enterFlowControl, type Running } from './flowcontrol';
import { holdFor } from './rate-limit-hold';
import { resourceAttributes } from '../core/rbac/request-attributes';
import { queryBool } from '../core/query-bool';
import { forbidden, forbiddenPath, statusResponse, tooManyRequests } from '../core/status';
import { forbiddenReason, isPrivileged, type UserInfo } from '../core/rbac/authorize';
import type { Admission, Impersonation } from '../contract/rpc';
import { authorizerName, authorizerStub } from '../contract/names';
import { impersonatedUser, impersonationAttributes, internalErrorText, parseImpersonation } from '../core/auth/impersonation';
import { auditDecision, auditImpersonation } from './audit';
import type { AppEnv, Bindings } from './env';
import { fnv1a32 } from '../core/hash';
import { requestUrl } from './request-url';
import type { Settings } from '../core/settings';

export const authorize: MiddlewareHandler<AppEnv> = async (c, next) => {
  const requester = c.get('user');
  const url = requestUrl(c.req.raw);
  const info = parseResourcePath(c.req.method, url.pathname, queryBool(url.searchParams, 'watch'));
  c.set('request', info);
  const attrs = info ? resourceAttributes(info) : { verb: c.req.method.toLowerCase(), resourceRequest: false, apiGroup: '', resource: '', subresource: '', name: '', namespace: '', path: url.pathname };
  // Impersonation (kube's WithImpersonation, before flow control and authorization): the headers name the user
  // the rest of the request runs as; every one of them must be allowed to the requester as `impersonate`.
  const parsed = parseImpersonation(c.req.raw.headers);
  if (parsed.kind === 'error') {
    return new Response(internalErrorText(`${url.pathname}${url.search}`, parsed.message), {
      status: 500, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
    });
  }
  let user = requester;
  let impersonation: Impersonation | undefined;
  if (parsed.kind === 'requests') {
    user = impersonatedUser(parsed.requests, parsed.groupsSpecified);
    // kube's privileged-group authorizer allows system:masters to impersonate anyone without asking RBAC.
    if (!isPrivileged(requester)) impersonation = { requester, checks: parsed.requests.map(impersonationAttributes) };
  }
  const proceed = async (reason: string): Promise<undefined> => {
    if (parsed.kind === 'requests') {
      c.set('user', user);
      c.set('impersonator', requester);
      auditImpersonation(c, user);
    }
    auditDecision(c, true, reason);
    await next();
    return undefined;
  };
  // Flow control (kube's WithPriorityAndFairness, between impersonation and authorization; worker/flowcontrol.ts).
  // An impersonating request is charged to whoever sent it: the impersonation is not yet allowed here, and naming
  // system:masters must not buy a way around the queues.
  const enter = () => enterFlowControl(c, {
    user: impersonation ? requester : user, attrs, query: url.searchParams,
    groupResource: info?.type ? groupResource(info.type) : undefined,
  });
  const flow = await enter();
  if (flow instanceof Response) return flow;
  let running: Running = flow;
  try {
    const decision = await admission(c, user, attrs, impersonation, requester);
    const holdMs = decision.allowed ? decision.delayMs ?? 0 : decision.throttled ? c.get('settings').rateLimitMaxDelayMs : 0;
    if (holdMs > 0) {
      // Past its rate limit (core/rate-limit.ts): an allowed request waits for its reserved token; a refused one
      // gets its 429 only after the same wait, so a client that asks again at once loops once per
      // RATE_LIMIT_MAX_DELAY_MS per connection rather than on the thread. Neither holds a seat meanwhile (the wait is
      // the user's limit, not work); the allowed one then queues again like any request.
      running.done();
      const waited = await holdFor(c, holdMs);
      if (decision.allowed) {
        if (!waited) return running.stamp(statusResponse(tooManyRequests('Too many requests, please try again later.', Math.ceil(holdMs / 1000))));
        const again = await enter();
        if (again instanceof Response) return again;
        running = again;
      }
    }
    const early = await answer(c, decision, user, attrs, info, parsed.kind === 'requests', impersonation, proceed);
    if (early) return running.stamp(early);
    const stamped = running.stamp(c.res);
    if (stamped !== c.res) c.res = stamped;
  } finally {
    running.done(); // a watch's seats go once its response is made, as kube's are released once it is initialized
  }
};

/**
 * The authorizer's decision. kube's privileged-group authorizer: system:masters is allowed before RBAC (and flow
 * control) is consulted, so no RBAC state — every binding deleted, a bad object stored — can lock it out.
 */
async function admission(c: Context<AppEnv>, user: UserInfo, attrs: RequestAttributes, impersonation: Impersonation | undefined, requester: UserInfo): Promise<Admission> {
  if (isPrivileged(user) && !impersonation) return { allowed: true, reason: '' };
  try {
    const shard = authorizerFor(c.env, c.get('settings'), user);
    return await shard.stub.admit(shard.name, user, attrs, impersonation);
  } catch (e) {
    // Fail closed: an authorizer that cannot answer denies. Logged without the request's credentials.
    console.error('authorization failed', user.username, attrs.verb, attrs.resource || attrs.path, (e as Error)?.message);
    return impersonation
      ? { allowed: false, throttled: false, reason: forbiddenReason(requester, impersonation.checks[0]), decisionReason: '', impersonation: 0 }
      : { allowed: false, throttled: false, reason: forbiddenReason(user, attrs), decisionReason: '' };
  }
}

/** Proceeds on an allowed decision (undefined, the response in c.res), or answers its 429/403. */
async function answer(
  c: Context<AppEnv>, decision: Admission, user: UserInfo, attrs: RequestAttributes, info: ResourceRequest | undefined, impersonating: boolean,
  impersonation: Impersonation | undefined, proceed: (reason: string) => Promise<undefined>,
): Promise<Response | undefined> {
  if (decision.allowed) return proceed(decision.reason);
  if (decision.throttled) {
    return statusResponse(tooManyRequests('Too many requests, please try again later.', decision.retryAfterSeconds));
  }
  if (decision.impersonation !== undefined && impersonation) {
    // responsewriters.Forbidden on the impersonation attributes: `users "jane" is forbidden: User "alice" cannot
    // impersonate resource "users" in API group "" at the cluster scope`.
    const refused = impersonation.checks[decision.impersonation];
    return statusResponse(forbidden({ group: refused.apiGroup, resource: refused.resource }, refused.name, decision.reason));
  }
  if (impersonating) auditImpersonation(c, user);
  auditDecision(c, false, decision.decisionReason);
  if (!info) return statusResponse(forbiddenPath(decision.reason));
  return statusResponse(forbidden({ group: info.group, resource: info.resource }, info.name, decision.reason));
}

/** Users are spread over AUTHZ_SHARDS authorizers by a hash of their name; each follows RBAC itself. */
export function authorizerFor(env: Bindings, settings: Settings, user: UserInfo) {
  const shards = settings.authzShards;
  const name = authorizerName(fnv1a32(user.username) % shards);
  return { name, stub: authorizerStub(env, name) };
}

/** Every shard, for read-your-writes after an RBAC change. */
export function allAuthorizers(env: Bindings, settings: Settings) {
  const shards = settings.authzShards;
  return Array.from({ length: shards }, (_, i) => {
    const name = authorizerName(i);
    return { name, stub: authorizerStub(env, name) };
  });
}
