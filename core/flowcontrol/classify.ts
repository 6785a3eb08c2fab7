// Core: which FlowSchema a request belongs to and its flow (kube's apf_controller startRequest and match.go):
// FlowSchemas in matchingPrecedence order, then name; the first whose rules match the user and the request wins;
// its distinguisher (ByUser, ByNamespace, none) names the flow. Schemas whose priority level is missing are
// skipped, and the mandatory exempt and catch-all schemas are supplied when absent. Matching is linear in the
// rules' lists.

import type { UserInfo } from '../rbac/authorize';
import type { RequestAttributes } from '../rbac/rules';
import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule } from './bootstrap';
import { MANDATORY_FLOW_SCHEMAS } from './bootstrap';

const SA_PREFIX = 'system:serviceaccount:';

/** Sorts into matching order and supplies the mandatory schemas (kube's digestFlowSchemasLocked). */
export function orderFlowSchemas(schemas: readonly FlowSchema[], levelExists: (name: string) => boolean): FlowSchema[] {
  const usable = schemas.filter((fs) => levelExists(fs.spec.priorityLevelConfiguration.name));
  usable.sort((a, b) => precedence(a) - precedence(b) || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  if (!usable.some((fs) => fs.metadata.name === 'exempt')) usable.unshift(MANDATORY_FLOW_SCHEMAS[0]!);
  if (!usable.some((fs) => fs.metadata.name === 'catch-all')) usable.push(MANDATORY_FLOW_SCHEMAS[1]!);
  return usable;
}

const precedence = (fs: FlowSchema) => fs.spec.matchingPrecedence ?? 1000; // kube's default

export interface Classification {
  flowSchema: FlowSchema;
  flow: string;
}

export function classify(ordered: readonly FlowSchema[], user: UserInfo, attrs: RequestAttributes): Classification {
  let catchAll: FlowSchema | undefined;
  for (const fs of ordered) {
    if (matchesFlowSchema(fs, user, attrs)) return { flowSchema: fs, flow: distinguish(fs, user, attrs) };
    if (fs.metadata.name === 'catch-all') catchAll = fs;
  }
  // kube: a user outside system:authenticated and system:unauthenticated still lands in catch-all.
  const fs = catchAll ?? MANDATORY_FLOW_SCHEMAS[1]!;
  return { flowSchema: fs, flow: distinguish(fs, user, attrs) };
}

function distinguish(fs: FlowSchema, user: UserInfo, attrs: RequestAttributes): string {
  const type = fs.spec.distinguisherMethod?.type;
  if (type === 'ByUser') return user.username;
  if (type === 'ByNamespace') return attrs.namespace;
  return '';
}

export function matchesFlowSchema(fs: FlowSchema, user: UserInfo, attrs: RequestAttributes): boolean {
  return (fs.spec.rules ?? []).some((r) => matchesRule(r, user, attrs));
}

function matchesRule(r: PolicyRulesWithSubjects, user: UserInfo, attrs: RequestAttributes): boolean {
  if (!(r.subjects ?? []).some((s) => matchesSubject(s, user))) return false;
  return attrs.resourceRequest
    ? (r.resourceRules ?? []).some((rr) => matchesResourceRule(rr, attrs))
    : (r.nonResourceRules ?? []).some((nr) => matchesNonResourceRule(nr, attrs));
}

function matchesSubject(s: PolicyRulesWithSubjects['subjects'][number], user: UserInfo): boolean {
  switch (s.kind) {
    case 'User':
      return s.user?.name === '*' || s.user?.name === user.username;
    case 'Group':
      return s.group?.name === '*' || (!!s.group && user.groups.includes(s.group.name));
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (!sa) return false;
      const prefix = `${SA_PREFIX}${sa.namespace}:`;
      if (!user.username.startsWith(prefix)) return false;
      return sa.name === '*' || user.username.length === prefix.length + sa.name.length && user.username.endsWith(sa.name);
    }
    default:
      return false;
  }
}

const has = (list: readonly string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));

function matchesResourceRule(r: ResourcePolicyRule, a: RequestAttributes): boolean {
  if (!has(r.verbs, a.verb) || !has(r.apiGroups, a.apiGroup)) return false;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (!has(r.resources, resource)) return false;
  if (!a.namespace) return r.clusterScope === true;
  return has(r.namespaces, a.namespace);
}

function matchesNonResourceRule(r: NonResourcePolicyRule, a: RequestAttributes): boolean {
  if (!has(r.verbs, a.verb)) return false;
  return (r.nonResourceURLs ?? []).some((p) => p === '*' || p === a.path || (p.endsWith('/*') && a.path.startsWith(p.slice(0, -1))));
}
