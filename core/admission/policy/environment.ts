// Core: the CEL environment of ValidatingAdmissionPolicy expressions (apiserver pkg/admission/plugin/cel
// compile.go mustBuildEnvs): the CRD machinery's libraries, step counter and linear regexes (core/crd/cel/
// library.ts) with the admission variables `object`, `oldObject`, `request`, `params`, `namespaceObject`,
// `variables` and `authorizer`, and kube's authorizer library (apiserver pkg/cel/library/authz.go) as far as
// cel-js types allow: authorizer.group(g).resource(r).namespace(n).name(x).subresource(s).check(verb) and
// authorizer.path(p).check(verb), authorizer.requestResource.check(verb), giving a decision with allowed(),
// reason(), errored() and error(); authorizer.serviceAccount(ns, name) asks for that account instead.

import type { Environment } from '@marcbachmann/cel-js';
import { celEnvironmentDeclared } from '../../crd/cel/library';

/** What one authorizer check asks (kube's authorizer.AttributesRecord, as far as the library sets it). */
export interface AuthzCheck {
  /** Empty: the request's user; else a ServiceAccount's username. */
  user: string;
  verb: string;
  /** Resource checks: group/resource/subresource/namespace/name; path checks: path. */
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
}

export interface AuthzAnswer {
  allowed: boolean;
  reason: string;
  error?: string;
}

/** Answers a check, or undefined while it is not known yet (the front door resolves it and evaluates again). */
export type AuthzLookup = (check: AuthzCheck) => AuthzAnswer | undefined;

export const checkKey = (c: AuthzCheck) => JSON.stringify([c.user, c.verb, c.group ?? null, c.resource ?? '', c.subresource ?? '', c.namespace ?? '', c.name ?? '', c.path ?? null]);

export class Authorizer {
  /** authorizer.requestResource: the request's own group, resource, subresource, namespace and name. */
  requestResource?: ResourceCheck;
  constructor(readonly lookup: AuthzLookup, readonly user = '') {}
}

export class PathCheck {
  constructor(readonly authz: Authorizer, readonly path: string) {}
}

export class GroupCheck {
  constructor(readonly authz: Authorizer, readonly group: string) {}
}

export class ResourceCheck {
  constructor(
    readonly authz: Authorizer,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {}
  with(part: Partial<Pick<ResourceCheck, 'subresource' | 'namespace' | 'name'>>): ResourceCheck {
    return new ResourceCheck(this.authz, this.group, this.resource, part.subresource ?? this.subresource, part.namespace ?? this.namespace, part.name ?? this.name);
  }
}

/** kube's JSONPatch library (apiserver pkg/cel/library/jsonpatch.go): `jsonpatch.escapeKey(k)` as RFC 6901 escapes it. */
export class JsonPatchLibrary {}
export const JSONPATCH = new JsonPatchLibrary();

/**
 * `Object…{…}` and `JSONPatch{…}` construction (apiserver pkg/cel/mutation typeresolver.go, dynamic/objects.go):
 * cel-js has no message literals, so ./mutate.ts rewrites each to a call of this function with the type's name and
 * a map of the fields; the map is the value, and its type name is kept beside it for kube's check that names
 * follow field paths. Only a mutation's rewritten text may call it (a policy that names it is refused).
 */
export const OBJECT_INIT = '__k8s_object';
const constructed = new WeakMap<object, string>();

/** The type name a constructed value was built as (`Object.spec`), or undefined for any other value. */
export function constructedTypeName(v: unknown): string | undefined {
  return v !== null && typeof v === 'object' ? constructed.get(v) : undefined;
}

export class Decision {
  constructor(readonly answer: AuthzAnswer) {}
}

// authz.go: a check not yet resolved reads as an errored decision (the front door evaluates again once known).
const PENDING: AuthzAnswer = { allowed: false, reason: '', error: 'authorization check not resolved' };

function decide(authz: Authorizer, check: Omit<AuthzCheck, 'user'>): Decision {
  return new Decision(authz.lookup({ ...check, user: authz.user }) ?? PENDING);
}

function declare(env: Environment, add: (signature: string, fn: (...args: never[]) => unknown) => void): void {
  env.registerType('kubernetes.authorization.PathCheck', PathCheck);
  env.registerType('kubernetes.authorization.GroupCheck', GroupCheck);
  env.registerType('kubernetes.authorization.ResourceCheck', ResourceCheck);
  env.registerType('kubernetes.authorization.Authorizer', { ctor: Authorizer, fields: { requestResource: 'kubernetes.authorization.ResourceCheck' } } as never);
  env.registerType('kubernetes.authorization.Decision', Decision);
  for (const v of ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables']) env.registerVariable(v, 'dyn');
  env.registerVariable('authorizer', 'kubernetes.authorization.Authorizer');
  env.registerType('kubernetes.JSONPatch', JsonPatchLibrary);
  env.registerVariable('jsonpatch', 'kubernetes.JSONPatch');
  add(`${OBJECT_INIT}(string, map): map`, (name: string, fields: object) => {
    constructed.set(fields, name);
    return fields;
  });
  add('kubernetes.JSONPatch.escapeKey(string): string', (_l: JsonPatchLibrary, k: string) => k.replaceAll('~', '~0').replaceAll('/', '~1'));
  add('kubernetes.authorization.Authorizer.path(string): kubernetes.authorization.PathCheck', (a: Authorizer, p: string) => new PathCheck(a, p));
  add('kubernetes.authorization.Authorizer.group(string): kubernetes.authorization.GroupCheck', (a: Authorizer, g: string) => new GroupCheck(a, g));
  add('kubernetes.authorization.Authorizer.serviceAccount(string, string): kubernetes.authorization.Authorizer', (a: Authorizer, ns: string, name: string) => {
    const sa = new Authorizer(a.lookup, `system:serviceaccount:${ns}:${name}`);
    const r = a.requestResource;
    if (r) sa.requestResource = new ResourceCheck(sa, r.group, r.resource, r.subresource, r.namespace, r.name);
    return sa;
  });
  add('kubernetes.authorization.GroupCheck.resource(string): kubernetes.authorization.ResourceCheck', (g: GroupCheck, r: string) => new ResourceCheck(g.authz, g.group, r));
  add('kubernetes.authorization.ResourceCheck.subresource(string): kubernetes.authorization.ResourceCheck', (r: ResourceCheck, s: string) => r.with({ subresource: s }));
  add('kubernetes.authorization.ResourceCheck.namespace(string): kubernetes.authorization.ResourceCheck', (r: ResourceCheck, s: string) => r.with({ namespace: s }));
  add('kubernetes.authorization.ResourceCheck.name(string): kubernetes.authorization.ResourceCheck', (r: ResourceCheck, s: string) => r.with({ name: s }));
  add('kubernetes.authorization.ResourceCheck.check(string): kubernetes.authorization.Decision', (r: ResourceCheck, verb: string) =>
    decide(r.authz, { verb, group: r.group, resource: r.resource, subresource: r.subresource, namespace: r.namespace, name: r.name }));
  add('kubernetes.authorization.PathCheck.check(string): kubernetes.authorization.Decision', (p: PathCheck, verb: string) => decide(p.authz, { verb, path: p.path }));
  add('kubernetes.authorization.Decision.allowed(): bool', (d: Decision) => d.answer.allowed);
  add('kubernetes.authorization.Decision.reason(): string', (d: Decision) => d.answer.reason);
  add('kubernetes.authorization.Decision.errored(): bool', (d: Decision) => d.answer.error !== undefined);
  add('kubernetes.authorization.Decision.error(): string', (d: Decision) => d.answer.error ?? '');
}

/**
 * The `authorizer` variable of one request (cel activation.go): checks answered by `lookup`, and
 * requestResource the request's own group, resource, subresource, namespace and name (AdmissionRequest fields).
 */
export function requestAuthorizer(lookup: AuthzLookup, request: unknown): Authorizer {
  const authorizer = new Authorizer(lookup);
  const r = (request ?? {}) as { resource?: { group?: string; resource?: string }; subResource?: string; namespace?: string; name?: string };
  authorizer.requestResource = new ResourceCheck(authorizer, r.resource?.group ?? '', r.resource?.resource ?? '', r.subResource ?? '', r.namespace ?? '', r.name ?? '');
  return authorizer;
}

/** The environment every policy expression compiles in (built on first use). */
export function policyEnvironment(): Environment {
  return celEnvironmentDeclared('admission-policy', declare);
}
