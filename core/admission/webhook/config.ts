// Core: Validating/MutatingWebhookConfiguration objects as the dispatcher uses them (admissionregistration/v1
// types with their defaults, apis/admissionregistration/v1/defaults.go): every webhook of every configuration,
// configurations in name order (kube's configuration manager sorts them so), webhooks in their listed order.

import type { KubeObject } from '../../object-meta';
import type { LabelSelectorSpec } from '../../selectors/label-selector';
import type { MatchCondition } from '../match/conditions';
import type { MatchCriteria } from '../match/matcher';
import type { RuleWithOperations } from '../match/rules';

export type WebhookKind = 'validating' | 'mutating';

export interface ServiceReference {
  namespace?: string;
  name?: string;
  path?: string;
  port?: number;
}

export interface Webhook {
  /** Unique within this snapshot: `<configuration>/<index>` (kube's accessor UID), for reinvocation. */
  uid: string;
  kind: WebhookKind;
  configurationName: string;
  name: string;
  clientConfig: { url?: string; service?: ServiceReference; caBundle?: string };
  rules: RuleWithOperations[];
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: 'Exact' | 'Equivalent';
  namespaceSelector: LabelSelectorSpec;
  objectSelector: LabelSelectorSpec;
  sideEffects?: string;
  /** Seconds, 1–30 (default 10). */
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
  matchConditions: MatchCondition[];
}

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const MAX_TIMEOUT_SECONDS = 30;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function rulesOf(v: unknown): RuleWithOperations[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObj).map((r) => ({
    operations: strings(r.operations), apiGroups: strings(r.apiGroups), apiVersions: strings(r.apiVersions), resources: strings(r.resources),
    scope: typeof r.scope === 'string' ? r.scope : '*',
  }));
}

function webhookOf(kind: WebhookKind, configurationName: string, index: number, w: Record<string, unknown>): Webhook {
  const cc = isObj(w.clientConfig) ? w.clientConfig : {};
  const svc = isObj(cc.service) ? cc.service : undefined;
  const timeout = typeof w.timeoutSeconds === 'number' && Number.isInteger(w.timeoutSeconds) ? w.timeoutSeconds : DEFAULT_TIMEOUT_SECONDS;
  return {
    uid: `${configurationName}/${index}`,
    kind,
    configurationName,
    name: typeof w.name === 'string' ? w.name : '',
    clientConfig: {
      url: typeof cc.url === 'string' ? cc.url : undefined,
      service: svc && {
        namespace: typeof svc.namespace === 'string' ? svc.namespace : undefined,
        name: typeof svc.name === 'string' ? svc.name : undefined,
        path: typeof svc.path === 'string' ? svc.path : undefined,
        port: typeof svc.port === 'number' ? svc.port : 443,
      },
      caBundle: typeof cc.caBundle === 'string' ? cc.caBundle : undefined,
    },
    rules: rulesOf(w.rules),
    failurePolicy: w.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: w.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    namespaceSelector: isObj(w.namespaceSelector) ? (w.namespaceSelector as LabelSelectorSpec) : {},
    objectSelector: isObj(w.objectSelector) ? (w.objectSelector as LabelSelectorSpec) : {},
    sideEffects: typeof w.sideEffects === 'string' ? w.sideEffects : undefined,
    timeoutSeconds: Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, timeout)),
    admissionReviewVersions: strings(w.admissionReviewVersions),
    reinvocationPolicy: kind === 'mutating' && w.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    matchConditions: Array.isArray(w.matchConditions) ? w.matchConditions.filter(isObj).map((c) => ({ name: String(c.name ?? ''), expression: String(c.expression ?? '') })) : [],
  };
}

/** Every webhook of `configurations`, in kube's call order. */
export function webhooksOf(kind: WebhookKind, configurations: readonly KubeObject[]): Webhook[] {
  const sorted = [...configurations].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0));
  const out: Webhook[] = [];
  for (const c of sorted) {
    const hooks = (c as { webhooks?: unknown }).webhooks;
    if (!Array.isArray(hooks)) continue;
    hooks.forEach((w, i) => {
      if (isObj(w)) out.push(webhookOf(kind, c.metadata?.name ?? '', i, w));
    });
  }
  return out;
}

export function criteriaOf(w: Webhook): MatchCriteria {
  return { rules: w.rules, matchPolicy: w.matchPolicy, namespaceSelector: w.namespaceSelector, objectSelector: w.objectSelector };
}
