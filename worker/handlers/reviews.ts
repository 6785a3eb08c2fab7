// Front door: the APIs that answer rather than store: who am I (SelfSubjectReview), may I
// (SelfSubjectAccessReview), what may I (SelfSubjectRulesReview), who is this token (TokenReview), may they
// (SubjectAccessReview, LocalSubjectAccessReview) — the last three are what delegated authentication and
// authorization (metrics-server, kube-rbac-proxy, aggregated API servers) ask — and ServiceAccount tokens
// (serviceaccounts/<name>/token, a TokenRequest).

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import { lookupGroupResource, type ResourceType } from '../../core/registry';
import { badRequest, invalid, notFound, StatusError, type Status } from '../../core/status';
import { timestamp } from '../../core/object-meta';
import { serviceAccountUsername, signServiceAccountToken } from '../../core/auth/service-account-token';
import type { RequestAttributes } from '../../core/rbac/rules';
import type { AppEnv } from '../env';
import { authorizerFor } from '../authz';
import { resourceAttributes } from '../../core/rbac/request-attributes';
import { reviewToken } from '../auth';
import type { UserInfo } from '../../core/rbac/authorize';
import { authSettings, DEFAULT_TOKEN_EXPIRATION_SECONDS, MAX_TOKEN_EXPIRATION_SECONDS, MIN_TOKEN_EXPIRATION_SECONDS, signingKey } from '../settings';
import { resolveBoundObject, type BoundObjectReference } from '../service-account-bindings';
import { readObject } from '../stores';
import { decodeObject, type FieldValidation } from '../../core/validation/known-fields';

type Ctx = Context<AppEnv>;

function parse(body: string): Record<string, any> {
  try {
    const v = body.trim() ? JSON.parse(body) : {};
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
    return v;
  } catch (e) {
    throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`));
  }
}

export async function review(c: Ctx, type: ResourceType, body: string, fieldValidation: FieldValidation = 'Warn', namespace = ''): Promise<Response> {
  const user = c.get('user');
  // Decoded against the kind's schema like any created object: wrong types and unknown fields as kube answers.
  const warnings: string[] = [];
  const obj = decodeObject(type, parse(body), { fieldValidation, warnings, text: body });
  for (const w of warnings) c.header('warning', `299 - ${JSON.stringify(w)}`, { append: true });
  const spec = obj.spec ?? {};
  const base = { kind: type.kind, apiVersion: `${type.group}/${type.version}`, metadata: { creationTimestamp: null } };
  const shard = authorizerFor(c.env, c.get('settings'), user);
  if (type.kind === 'TokenReview') return c.json(await tokenReview(c, obj), 201);
  if (type.kind === 'SubjectAccessReview' || type.kind === 'LocalSubjectAccessReview') {
    return c.json(await subjectAccessReview(c, type, obj, namespace), 201);
  }
  if (type.kind === 'SelfSubjectReview') {
    // authentication/v1 UserInfo: uid, groups and extra are omitempty (an impersonated user may have none).
    const userInfo: Record<string, unknown> = { username: user.username };
    if (user.uid) userInfo.uid = user.uid;
    if (user.groups.length) userInfo.groups = user.groups;
    if (user.extra && Object.keys(user.extra).length) userInfo.extra = user.extra;
    return c.json({ ...base, status: { userInfo } }, 201);
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

/**
 * TokenReview (tokenreview/storage.go): the token authenticated as a request's would be; status.user and
 * status.audiences when it authenticates, `authenticated` left out (false) when it does not. The review object is
 * echoed, token included, as kube does.
 */
async function tokenReview(c: Ctx, obj: Record<string, any>): Promise<Record<string, unknown>> {
  const spec = (obj.spec ?? {}) as { token?: string; audiences?: string[] };
  if (!spec.token) throw new StatusError(badRequest('token is required for TokenReview in authentication'));
  const result = await reviewToken(c.env, spec.token, spec.audiences ?? []);
  const status: Record<string, unknown> = {};
  if (result.user) {
    status.authenticated = true;
    status.user = userInfo(result.user);
    if (result.audiences.length) status.audiences = result.audiences;
  } else {
    status.user = {};
  }
  return { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: reviewMetadata(obj), spec, status };
}

/** authentication/v1 UserInfo: every field omitempty. */
function userInfo(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length) out.extra = user.extra;
  return out;
}

// The review's metadata as kube echoes it: creationTimestamp null, the namespace of a local review.
function reviewMetadata(obj: Record<string, any>, namespace = ''): Record<string, unknown> {
  const m = { ...(obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : {}) } as Record<string, unknown>;
  if (namespace) m.namespace = namespace;
  m.creationTimestamp = null;
  return m;
}

const nullOr = (v: unknown) => (v === undefined || v === null ? '"null"' : JSON.stringify(v));

/**
 * SubjectAccessReview and LocalSubjectAccessReview (pkg/registry/authorization/*subjectaccessreview): the spec's
 * user, groups and extra decided by the same authorizer as requests, after kube's validation
 * (ValidateSubjectAccessReview, ValidateLocalSubjectAccessReview) and, for the local one, its namespace checks.
 */
async function subjectAccessReview(c: Ctx, type: ResourceType, obj: Record<string, any>, namespace: string): Promise<Record<string, unknown>> {
  const local = type.kind === 'LocalSubjectAccessReview';
  const spec = (obj.spec ?? {}) as {
    resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string>;
    user?: string; groups?: string[]; extra?: Record<string, string[]>; uid?: string;
  };
  const meta = (obj.metadata ?? {}) as Record<string, unknown>;
  if (local) {
    const given = meta.namespace;
    if (given !== undefined && given !== '' && given !== namespace) {
      throw new StatusError(badRequest('the namespace of the provided object does not match the namespace sent on the request'));
    }
  }
  const causes: { reason: string; message: string; field: string }[] = [];
  const bad = (field: string, value: string, detail: string) => causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${detail}`, field });
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    bad('spec.nonResourceAttributes', nullOr(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes');
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    bad('spec.resourceAttributes', nullOr(spec.nonResourceAttributes), 'exactly one of nonResourceAttributes or resourceAttributes must be specified');
  }
  if (!spec.user && !(spec.groups ?? []).length) bad('spec.user', JSON.stringify(spec.user ?? ''), 'at least one of user or group must be specified');
  const extraMeta = Object.keys(meta).filter((k) => k !== 'managedFields' && k !== 'creationTimestamp' && (!local || k !== 'namespace') && meta[k] !== undefined && meta[k] !== null && meta[k] !== '');
  if (extraMeta.length) bad('metadata', JSON.stringify(meta), local ? 'must be empty except for namespace' : 'must be empty');
  if (local) {
    if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== namespace) {
      bad('spec.resourceAttributes.namespace', JSON.stringify(spec.resourceAttributes.namespace ?? ''), 'must match metadata.namespace');
    }
    if (spec.nonResourceAttributes) bad('spec.nonResourceAttributes', nullOr(spec.nonResourceAttributes), 'disallowed on this kind of request');
  }
  if (causes.length) throw new StatusError(invalid('authorization.k8s.io', type.kind, '', causes));
  const subject: UserInfo = { username: spec.user ?? '', uid: spec.uid ?? '', groups: spec.groups ?? [] };
  if (spec.extra && Object.keys(spec.extra).length) subject.extra = spec.extra;
  const shard = authorizerFor(c.env, c.get('settings'), subject);
  const decision = await shard.stub.review(shard.name, subject, accessAttributes(spec));
  const status: Record<string, unknown> = { allowed: decision.allowed };
  if (decision.reason) status.reason = decision.reason;
  return { kind: type.kind, apiVersion: 'authorization.k8s.io/v1', metadata: reviewMetadata(obj, local ? namespace : ''), spec, status };
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

/**
 * POST serviceaccounts/<name>/token: a signed, expiring token for that account, as kube's TokenREST.Create
 * (pkg/registry/core/serviceaccount/storage/token.go): audiences default to the API audiences, a token for
 * any other audience is issued but does not authenticate here; expirationSeconds defaults to an hour, must
 * lie in [10 min, 2^32 s] and is shortened to the configured maximum with a warning; a boundObjectRef ties
 * the token to a Pod, Secret or Node, and the token dies with it.
 */
export async function tokenRequest(c: Ctx, info: ResourceRequest, body: string): Promise<Response> {
  const obj = parse(body);
  const metadata = (obj.metadata ?? {}) as Record<string, unknown>;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  mustMatch(metadata.name, info.name, 'metadata.name', 'must match the service account name if specified', info.name);
  mustMatch(metadata.namespace, info.namespace, 'metadata.namespace', 'must match the service account namespace if specified', info.name);
  const requestedAudiences = stringList(spec.audiences, 'spec.audiences');
  const requestedSeconds = spec.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
  if (typeof requestedSeconds !== 'number' || !Number.isSafeInteger(requestedSeconds)) {
    throw new StatusError(decodeError('spec.expirationSeconds', requestedSeconds, 'int64'));
  }
  const boundRef = boundObjectRef(spec.boundObjectRef);

  const account = await readObject<{ metadata: { uid: string } }>(c.env, SERVICE_ACCOUNTS, info.namespace, info.name);
  if (!account.ok) throw new StatusError(account.status.code === 404 ? notFound(SERVICE_ACCOUNTS, info.name) : account.status);
  const settings = authSettings(c.env);
  const audiences = requestedAudiences.length > 0 ? requestedAudiences : settings.apiAudiences;
  const nowMs = Date.now();

  // ValidateTokenRequest, reported as NewInvalid(TokenRequest, "", errs): the name is empty upstream.
  const causes = [];
  if (requestedSeconds < MIN_TOKEN_EXPIRATION_SECONDS) {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds', message: `Invalid value: ${requestedSeconds}: may not specify a duration less than 10 minutes` });
  }
  if (requestedSeconds > MAX_TOKEN_EXPIRATION_SECONDS) {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds', message: `Invalid value: ${requestedSeconds}: may not specify a duration larger than 2^32 seconds` });
  }
  if (causes.length > 0) throw new StatusError(invalid('authentication.k8s.io', 'TokenRequest', '', causes));

  const bound = boundRef ? await resolveBoundObject(c.env, info.namespace, info.name, boundRef) : {};
  let seconds = requestedSeconds;
  const headers: Record<string, string> = {};
  if (seconds > settings.maxTokenExpirationSeconds) {
    headers.warning = `299 - "requested expiration of ${seconds} seconds shortened to ${settings.maxTokenExpirationSeconds} seconds"`;
    seconds = settings.maxTokenExpirationSeconds;
  }
  const now = Math.floor(nowMs / 1000);
  const token = await signServiceAccountToken({
    iss: settings.issuer, sub: serviceAccountUsername(info.namespace, info.name),
    aud: audiences, iat: now, nbf: now, exp: now + seconds, jti: crypto.randomUUID(),
    'kubernetes.io': { namespace: info.namespace, serviceaccount: { name: info.name, uid: account.value.metadata.uid }, ...bound },
  }, await signingKey(c.env));
  return c.json({
    kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: info.name, namespace: info.namespace, creationTimestamp: timestamp(nowMs) },
    spec: boundRef ? { audiences, expirationSeconds: seconds, boundObjectRef: boundRef } : { audiences, expirationSeconds: seconds },
    status: { token, expirationTimestamp: timestamp((now + seconds) * 1000) },
  }, 201, headers);
}

// A name or namespace in the body must be the URL's (token.go), else 422 on the account's name.
function mustMatch(given: unknown, expected: string, field: string, detail: string, name: string): void {
  if (given === undefined || given === null || given === '' || given === expected) return;
  throw new StatusError(invalid('authentication.k8s.io', 'TokenRequest', name, [{
    reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(given)}: ${detail}`,
  }]));
}

/** spec.boundObjectRef with the fields BoundObjectReference has (the rest dropped, as decoding does). */
function boundObjectRef(v: unknown): BoundObjectReference | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new StatusError(decodeError('spec.boundObjectRef', v, 'v1.BoundObjectReference'));
  const ref: BoundObjectReference = {};
  for (const key of ['kind', 'apiVersion', 'name', 'uid'] as const) {
    const value = (v as Record<string, unknown>)[key];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') throw new StatusError(decodeError(`spec.boundObjectRef.${key}`, value, key === 'uid' ? 'types.UID' : 'string', 'BoundObjectReference'));
    ref[key] = value;
  }
  return ref;
}

function stringList(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new StatusError(decodeError(field, v, '[]string'));
  for (const item of v) if (typeof item !== 'string') throw new StatusError(decodeError(field, item, 'string'));
  return v as string[];
}

// The 400 for a spec field of the wrong JSON type: the decoder's UnmarshalTypeError behind kube's prefix.
function decodeError(field: string, value: unknown, goType: string, goStruct = 'TokenRequestSpec'): Status {
  const jsonType = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  return badRequest(`TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal ${jsonType} into Go struct field ${goStruct}.${field} of type ${goType}`);
}
