// Front door: the APIs that answer rather than store: who am I (SelfSubjectReview), may I
// (SelfSubjectAccessReview), what may I (SelfSubjectRulesReview), and ServiceAccount tokens
// (serviceaccounts/<name>/token, a TokenRequest).

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import { lookupGroupResource, type ResourceType } from '../../core/registry';
import { badRequest, invalid, notFound, StatusError } from '../../core/status';
import { timestamp } from '../../core/object-meta';
import { ISSUER, signJwt } from '../../core/auth/jwt';
import type { RequestAttributes } from '../../core/rbac/rules';
import type { AppEnv } from '../env';
import { authorizerFor, resourceAttributes } from '../authz';
import { signingKey } from '../auth';
import { storeFor } from '../stores';
import { decodeObject, type FieldValidation } from '../../core/validation/known-fields';

type Ctx = Context<AppEnv>;

// authentication/validation: TokenRequest expirationSeconds must be at least 10 minutes.
const MIN_TOKEN_SECONDS = 600;
const DEFAULT_TOKEN_SECONDS = 3600;
const MAX_TOKEN_SECONDS = 2 ** 32;

function parse(body: string): Record<string, any> {
  try {
    const v = body.trim() ? JSON.parse(body) : {};
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
    return v;
  } catch (e) {
    throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`));
  }
}

export async function review(c: Ctx, type: ResourceType, body: string, fieldValidation: FieldValidation = 'Warn'): Promise<Response> {
  const user = c.get('user');
  // Decoded against the kind's schema like any created object: wrong types and unknown fields as kube answers.
  const warnings: string[] = [];
  const obj = decodeObject(type, parse(body), { fieldValidation, warnings, text: body });
  for (const w of warnings) c.header('warning', `299 - ${JSON.stringify(w)}`, { append: true });
  const spec = obj.spec ?? {};
  const base = { kind: type.kind, apiVersion: `${type.group}/${type.version}`, metadata: { creationTimestamp: null } };
  const shard = authorizerFor(c.env, user);
  if (type.kind === 'SelfSubjectReview') {
    return c.json({ ...base, status: { userInfo: { username: user.username, uid: user.uid, groups: user.groups } } }, 201);
  }
  if (type.kind === 'SelfSubjectAccessReview') {
    const attrs = accessAttributes(spec);
    const allowed = await shard.stub.check(shard.name, user, attrs);
    return c.json({ ...base, spec, status: { allowed } }, 201);
  }
  const rules = await shard.stub.rules(shard.name, user, String(spec.namespace ?? ''));
  return c.json({
    ...base,
    spec,
    status: {
      resourceRules: rules.filter((r) => !r.nonResourceURLs).map((r) => ({ verbs: r.verbs ?? [], apiGroups: r.apiGroups, resources: r.resources, resourceNames: r.resourceNames })),
      nonResourceRules: rules.filter((r) => r.nonResourceURLs).map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs })),
      incomplete: false,
    },
  }, 201);
}

function accessAttributes(spec: { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> }): RequestAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    return resourceAttributes({
      verb: (r.verb ?? '') as ResourceRequest['verb'], group: r.group ?? '', resource: r.resource ?? '',
      subresource: r.subresource ?? '', name: r.name ?? '', namespace: r.namespace ?? '',
    });
  }
  const n = spec.nonResourceAttributes ?? {};
  return { verb: n.verb ?? '', resourceRequest: false, apiGroup: '', resource: '', subresource: '', name: '', namespace: '', path: n.path ?? '' };
}

const SERVICE_ACCOUNTS = lookupGroupResource('core/serviceaccounts')!;

/** POST serviceaccounts/<name>/token: a signed, expiring token for that account. */
export async function tokenRequest(c: Ctx, info: ResourceRequest, body: string): Promise<Response> {
  const obj = parse(body);
  const spec = obj.spec ?? {};
  const seconds = spec.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
  if (!Number.isInteger(seconds) || seconds < MIN_TOKEN_SECONDS || seconds > MAX_TOKEN_SECONDS) {
    throw new StatusError(invalid('authentication.k8s.io', 'TokenRequest', info.name, [{
      reason: 'FieldValueInvalid', field: 'spec.expirationSeconds',
      message: `Invalid value: ${seconds}: may not specify a duration less than 10 minutes`,
    }]));
  }
  const sa = await storeFor(c.env, SERVICE_ACCOUNTS).get('core/serviceaccounts', { namespace: info.namespace, name: info.name, subresource: '' });
  if (!sa.ok) throw new StatusError(sa.status.code === 404 ? notFound(SERVICE_ACCOUNTS, info.name) : sa.status);
  const account = JSON.parse(sa.value.body) as { metadata: { uid: string } };
  const now = Math.floor(Date.now() / 1000);
  const token = await signJwt({
    iss: ISSUER, sub: `system:serviceaccount:${info.namespace}:${info.name}`,
    aud: spec.audiences?.length ? spec.audiences : [ISSUER], iat: now, nbf: now, exp: now + seconds,
    'kubernetes.io': { namespace: info.namespace, serviceaccount: { name: info.name, uid: account.metadata.uid } },
  }, await signingKey(c.env));
  return c.json({
    kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: info.name, namespace: info.namespace, creationTimestamp: timestamp(now * 1000) },
    spec: { audiences: spec.audiences?.length ? spec.audiences : [ISSUER], expirationSeconds: seconds, boundObjectRef: spec.boundObjectRef ?? null },
    status: { token, expirationTimestamp: timestamp((now + seconds) * 1000) },
  }, 201);
}
