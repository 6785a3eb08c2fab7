// Core: the audit Policy (audit.k8s.io/v1) — decoding, kube's validation, and the rule evaluation that gives each
// request its audit level and omitted stages (apiserver pkg/audit/policy/checker.go: rules in order, the first that
// matches wins, no match means None; a rule's omitStages are unioned with the policy's).
//
// Matching is linear in the rule count: every list a rule names is compiled once into a Set, so a request with many
// groups costs one lookup per group, not one scan of the rule's list per group.

import { parseAllDocuments } from 'yaml';
import { isDNS1123Subdomain } from '../validation/names';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const LEVELS: readonly Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const STAGES: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/** Level a is at least level b (auditinternal.Level.Less inverted). */
export function atLeast(a: Level, b: Level): boolean {
  return LEVELS.indexOf(a) >= LEVELS.indexOf(b);
}

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  apiVersion: 'audit.k8s.io/v1';
  kind: 'Policy';
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** What the evaluator needs of a request: authorizer.Attributes (user as authenticated, before impersonation). */
export interface AuditAttributes {
  user: { username: string; groups: string[] } | undefined; // undefined: authentication failed
  verb: string;
  resourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

/** auditinternal.RequestAuditConfig. */
export interface RequestAuditConfig {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

interface CompiledGroupResources {
  group: string;
  resources: string[];
  names: Set<string> | undefined;
}

interface CompiledRule {
  config: RequestAuditConfig;
  users?: Set<string>;
  userGroups?: Set<string>;
  verbs?: Set<string>;
  namespaces?: Set<string>;
  resources?: CompiledGroupResources[];
  nonResourceURLs?: string[];
}

const nonEmpty = (l: string[] | undefined): l is string[] => Array.isArray(l) && l.length > 0;
const setOf = (l: string[] | undefined) => (nonEmpty(l) ? new Set(l) : undefined);

export class PolicyEvaluator {
  private readonly rules: CompiledRule[];
  private readonly fallback: RequestAuditConfig;

  constructor(readonly policy: Policy) {
    const policyStages = policy.omitStages ?? [];
    this.rules = policy.rules.map((r) => ({
      config: {
        level: r.level,
        omitStages: new Set([...policyStages, ...(r.omitStages ?? [])]),
        omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields ?? false,
      },
      users: setOf(r.users),
      userGroups: setOf(r.userGroups),
      verbs: setOf(r.verbs),
      namespaces: setOf(r.namespaces),
      resources: r.resources?.length ? r.resources.map((g) => ({ group: g.group ?? '', resources: g.resources ?? [], names: setOf(g.resourceNames) })) : undefined,
      nonResourceURLs: nonEmpty(r.nonResourceURLs) ? r.nonResourceURLs : undefined,
    }));
    this.fallback = { level: 'None', omitStages: new Set(policyStages), omitManagedFields: policy.omitManagedFields ?? false };
  }

  /** EvaluatePolicyRule: the first matching rule's level and stages, else None. */
  evaluate(a: AuditAttributes): RequestAuditConfig {
    for (const r of this.rules) if (ruleMatches(r, a)) return r.config;
    return this.fallback;
  }
}

function ruleMatches(r: CompiledRule, a: AuditAttributes): boolean {
  if (r.users && (!a.user || !r.users.has(a.user.username))) return false;
  if (r.userGroups && (!a.user || !a.user.groups.some((g) => r.userGroups!.has(g)))) return false;
  if (r.verbs && !r.verbs.has(a.verb)) return false;
  if (r.namespaces || r.resources) return resourceMatches(r, a);
  if (r.nonResourceURLs) return !a.resourceRequest && r.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

// checker.go pathMatches: "*", the path itself, or a trailing-* prefix.
function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  if (!spec.endsWith('*')) return false;
  let end = spec.length;
  while (end > 0 && spec[end - 1] === '*') end--; // strings.TrimRight(spec, "*")
  return path.startsWith(spec.slice(0, end));
}

// checker.go ruleMatchesResource: namespaces ("" for cluster-scoped), then group/resources/resourceNames, with
// "*", "resource/subresource", "*/subresource" and "resource/*".
function resourceMatches(r: CompiledRule, a: AuditAttributes): boolean {
  if (!a.resourceRequest) return false;
  if (r.namespaces && !r.namespaces.has(a.namespace)) return false;
  if (!r.resources) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of r.resources) {
    if (gr.group !== a.apiGroup) continue;
    if (gr.resources.length === 0) return true;
    if (gr.names && !gr.names.has(a.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (a.subresource && res.startsWith('*/') && res.slice(2) === a.subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}

/** A policy decoded and validated, or why not (each problem as kube's validation words it). */
export type ParsedPolicy = { ok: true; policy: Policy; warnings: string[] } | { ok: false; problems: string[] };

// A policy is operator configuration, not request data, but it is still bounded: far above any real policy.
const MAX_POLICY_BYTES = 1 << 20;

/** LoadPolicyFromBytes: YAML or JSON, apiVersion audit.k8s.io/v1 and kind Policy, validated, at least one rule. */
export function parsePolicy(text: string): ParsedPolicy {
  if (text.length > MAX_POLICY_BYTES) return { ok: false, problems: [`the policy is larger than ${MAX_POLICY_BYTES} bytes`] };
  let doc: unknown;
  try {
    const docs = parseAllDocuments(text, { version: '1.1', uniqueKeys: false });
    const first = Array.isArray(docs) ? docs[0] : undefined;
    if (!first) return { ok: false, problems: ['failed decoding: the policy is empty'] };
    if (first.errors.length) return { ok: false, problems: [`failed decoding: ${first.errors[0].message.split('\n')[0]}`] };
    doc = first.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { ok: false, problems: [`failed decoding: ${(e as Error).message.split('\n')[0]}`] };
  }
  if (!isObject(doc)) return { ok: false, problems: ['failed decoding: the policy is not an object'] };
  if (doc.apiVersion !== 'audit.k8s.io/v1' || doc.kind !== 'Policy') {
    return { ok: false, problems: [`unknown group version field ${String(doc.apiVersion ?? '')}, Kind=${String(doc.kind ?? '')} in policy`] };
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  const policy = decodePolicy(doc, problems, warnings);
  if (problems.length) return { ok: false, problems };
  if (policy.rules.length === 0) return { ok: false, problems: ['loaded illegal policy with 0 rules'] };
  return { ok: true, policy, warnings };
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

// The lenient decoder: unknown fields are dropped with a warning (reader.go falls back to lenient decoding), fields of
// the wrong type are errors.
function decodePolicy(doc: Obj, problems: string[], warnings: string[]): Policy {
  for (const k of Object.keys(doc)) {
    if (!['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields'].includes(k)) warnings.push(`unknown field "${k}"`);
  }
  const omitStages = stages(doc.omitStages, 'omitStages', problems);
  const rules: PolicyRule[] = [];
  if (doc.rules !== undefined && doc.rules !== null && !Array.isArray(doc.rules)) problems.push('rules: must be a list');
  for (const [i, raw] of (Array.isArray(doc.rules) ? doc.rules : []).entries()) {
    const path = `rules[${i}]`;
    if (!isObject(raw)) {
      problems.push(`${path}: must be an object`);
      continue;
    }
    rules.push(decodeRule(raw, path, problems, warnings));
  }
  const policy: Policy = { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules };
  if (omitStages.length) policy.omitStages = omitStages;
  if (doc.omitManagedFields !== undefined) policy.omitManagedFields = bool(doc.omitManagedFields, 'omitManagedFields', problems);
  return policy;
}

const RULE_FIELDS = ['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields'];

// validation.go validatePolicyRule.
function decodeRule(raw: Obj, path: string, problems: string[], warnings: string[]): PolicyRule {
  for (const k of Object.keys(raw)) if (!RULE_FIELDS.includes(k)) warnings.push(`unknown field "${path}.${k}"`);
  const level = raw.level;
  if (level === undefined || level === null || level === '') problems.push(`${path}.level: Required value`);
  else if (!LEVELS.includes(level as Level)) {
    problems.push(`${path}.level: Unsupported value: ${JSON.stringify(level)}: supported values: ${LEVELS.map((l) => JSON.stringify(l)).join(', ')}`);
  }
  const rule: PolicyRule = { level: level as Level };
  for (const key of ['users', 'userGroups', 'verbs', 'namespaces', 'nonResourceURLs'] as const) {
    const list = strings(raw[key], `${path}.${key}`, problems);
    if (list.length) rule[key] = list;
  }
  for (const [i, url] of (rule.nonResourceURLs ?? []).entries()) {
    if (url === '*') continue;
    if (!url.startsWith('/')) problems.push(`${path}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(url)}: non-resource URL rules must begin with a '/' character`);
    if (url !== '' && url.slice(0, -1).includes('*')) {
      problems.push(`${path}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(url)}: non-resource URL wildcards '*' must be the final character of the rule`);
    }
  }
  if (rule.nonResourceURLs && (raw.resources !== undefined && Array.isArray(raw.resources) && raw.resources.length > 0 || rule.namespaces)) {
    problems.push(`${path}.nonResourceURLs: Invalid value: ${JSON.stringify(rule.nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
  }
  if (raw.resources !== undefined && raw.resources !== null) {
    if (!Array.isArray(raw.resources)) problems.push(`${path}.resources: must be a list`);
    else {
      rule.resources = raw.resources.map((g, j) => decodeGroupResources(g, `${path}.resources[${j}]`, problems));
      if (rule.resources.length === 0) delete rule.resources;
    }
  }
  const omit = stages(raw.omitStages, `${path}.omitStages`, problems);
  if (omit.length) rule.omitStages = omit;
  if (raw.omitManagedFields !== undefined && raw.omitManagedFields !== null) rule.omitManagedFields = bool(raw.omitManagedFields, `${path}.omitManagedFields`, problems);
  return rule;
}

function decodeGroupResources(raw: unknown, path: string, problems: string[]): GroupResources {
  if (!isObject(raw)) {
    problems.push(`${path}: must be an object`);
    return {};
  }
  const out: GroupResources = {};
  if (raw.group !== undefined && raw.group !== null) {
    if (typeof raw.group !== 'string') problems.push(`${path}.group: must be a string`);
    else if (raw.group) {
      const msgs = isDNS1123Subdomain(raw.group);
      // validation.go words the field without the index: fldPath.Child("group") of the list.
      if (msgs.length) problems.push(`${path.replace(/\[\d+\]$/, '')}.group: Invalid value: ${JSON.stringify(raw.group)}: ${msgs.join(',')}`);
      out.group = raw.group;
    }
  }
  const resources = strings(raw.resources, `${path}.resources`, problems);
  const names = strings(raw.resourceNames, `${path}.resourceNames`, problems);
  if (resources.length) out.resources = resources;
  if (names.length) {
    out.resourceNames = names;
    if (!resources.length) problems.push(`${path.replace(/\[\d+\]$/, '')}.resourceNames: Invalid value: ${JSON.stringify(names)}: using resourceNames requires at least one resource`);
  }
  return out;
}

function strings(v: unknown, path: string, problems: string[]): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    problems.push(`${path}: must be a list of strings`);
    return [];
  }
  return v as string[];
}

function stages(v: unknown, path: string, problems: string[]): Stage[] {
  const list = strings(v, path, problems);
  for (const [i, s] of list.entries()) {
    if (!STAGES.includes(s as Stage)) problems.push(`${path}[${i}]: Invalid value: ${JSON.stringify(s)}: allowed stages are ${STAGES.join(',')}`);
  }
  return list as Stage[];
}

function bool(v: unknown, path: string, problems: string[]): boolean {
  if (typeof v !== 'boolean') problems.push(`${path}: must be a boolean`);
  return v === true;
}
