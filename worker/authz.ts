// Front door: authorization and rate limiting, before anything reaches a store. Every request, watches
// included, is decided by the user's authorizer shard in one call; denials are kube-apiserver's 403.

import type { MiddlewareHandler } from 'hono';
import { parseResourcePath, type ResourceRequest } from '../core/request-info';
import { queryBool } from '../core/query-bool';
import { forbidden, forbiddenPath, statusResponse, tooManyRequests } from '../core/status';
import { forbiddenReason, isPrivileged, type UserInfo } from '../core/rbac/authorize';
import type { RequestAttributes } from '../core/rbac/rules';
import { AUTHORIZER_PREFIX } from '../durable-objects/replication';
import type { Admission } from '../durable-objects/authorizer';
import type { AppEnv, Bindings } from './env';
import { fnv1a32 } from '../core/hash';
import type { Settings } from '../core/settings';

export const authorize: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = c.get('user');
  const url = new URL(c.req.url);
  const info = parseResourcePath(c.req.method, url.pathname, queryBool(url.searchParams, 'watch'));
  c.set('request', info);
  // kube's privileged-group authorizer: system:masters is allowed before RBAC (and flow control) is
  // consulted, so no RBAC state — every binding deleted, a bad object stored — can lock it out.
  if (isPrivileged(user)) return next();
  const attrs = info ? resourceAttributes(info) : { verb: c.req.method.toLowerCase(), resourceRequest: false, apiGroup: '', resource: '', subresource: '', name: '', namespace: '', path: url.pathname };
  let decision: Admission;
  try {
    const shard = authorizerFor(c.env, c.get('settings'), user);
    decision = await shard.stub.admit(shard.name, user, attrs);
  } catch (e) {
    // Fail closed: an authorizer that cannot answer denies. Logged without the request's credentials.
    console.error('authorization failed', user.username, attrs.verb, attrs.resource || attrs.path, (e as Error)?.message);
    decision = { allowed: false, throttled: false, reason: forbiddenReason(user, attrs) };
  }
  if (decision.allowed) return next();
  if (decision.throttled) {
    return statusResponse(tooManyRequests('Too many requests, please try again later.', decision.retryAfterSeconds));
  }
  if (!info) return statusResponse(forbiddenPath(decision.reason));
  return statusResponse(forbidden({ group: info.group, resource: info.resource }, info.name, decision.reason));
};

/** authorizer.Attributes from the request; a namespace object is its own namespace (requestinfo.go). */
export function resourceAttributes(info: Pick<ResourceRequest, 'verb' | 'group' | 'resource' | 'subresource' | 'name' | 'namespace'>): RequestAttributes {
  const namespace = info.resource === 'namespaces' && info.group === '' && info.name ? info.name : info.namespace;
  return {
    verb: info.verb, resourceRequest: true, apiGroup: info.group, resource: info.resource,
    subresource: info.subresource, name: info.name, namespace, path: '',
  };
}

/** Users are spread over AUTHZ_SHARDS authorizers by a hash of their name; each follows RBAC itself. */
export function authorizerFor(env: Bindings, settings: Settings, user: UserInfo) {
  const shards = settings.authzShards;
  const name = `${AUTHORIZER_PREFIX}${fnv1a32(user.username) % shards}`;
  return { name, stub: env.AUTHORIZER.get(env.AUTHORIZER.idFromName(name)) };
}

/** Every shard, for read-your-writes after an RBAC change. */
export function allAuthorizers(env: Bindings, settings: Settings) {
  const shards = settings.authzShards;
  return Array.from({ length: shards }, (_, i) => {
    const name = `${AUTHORIZER_PREFIX}${i}`;
    return { name, stub: env.AUTHORIZER.get(env.AUTHORIZER.idFromName(name)) };
  });
}
