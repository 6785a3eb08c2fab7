// Core: whether an admission webhook or policy applies to a request (kube's generic.Webhook.ShouldCallHook and
// validatingadmissionpolicy matching.Matcher.Matches): namespaceSelector, objectSelector, the rules with
// matchPolicy Exact or Equivalent, and a policy's excludeResourceRules. matchConditions come after (./conditions.ts).
// As kube, a selector error or a missing namespace refuses only when the rules match.

import type { ResourceType } from '../../registry';
import type { LabelSelectorSpec } from '../../selectors/label-selector';
import { internalError, notFound, type Status } from '../../status';
import { gvrOf, kindOf, ruleAttributes, type RequestAttributes } from './attributes';
import { equivalentTypes } from './equivalents';
import { namedRuleMatches, ruleMatches, type GroupVersionKind, type GroupVersionResource, type RuleWithOperations } from './rules';
import { namespaceLabelSource, namespaceSelectorMatches, objectSelectorMatches } from './selectors';

export interface MatchCriteria {
  /** A webhook's `rules`, a policy's `resourceRules` (empty: matches nothing). */
  rules: readonly RuleWithOperations[];
  /** A policy's excludeResourceRules. */
  excludeRules?: readonly RuleWithOperations[];
  /** Rules are NamedRuleWithOperations (resourceNames honoured): policies. */
  named?: boolean;
  /** v1 default: Equivalent. */
  matchPolicy?: string;
  namespaceSelector?: LabelSelectorSpec | null;
  objectSelector?: LabelSelectorSpec | null;
}

/** The resource and kind the hook is called with: the request's, or the equivalent one a rule named. */
export interface Invocation {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  type: ResourceType;
}

export type MatchOutcome = { matches: false } | { matches: true; invocation: Invocation } | { matches: 'error'; status: Status };

/**
 * `namespaceLabels`: the labels of the namespace namespaceLabelSource names (null: it does not exist); not read
 * when the source is not a stored namespace.
 */
export function matchRequest(c: MatchCriteria, a: RequestAttributes, namespaceLabels?: Record<string, string> | null): MatchOutcome {
  let deferred: Status | undefined;
  const nsSource = namespaceLabelSource(a);
  try {
    const labels = nsSource.from === 'none' ? undefined : nsSource.from === 'object' ? nsSource.labels : namespaceLabels;
    if (nsSource.from !== 'none') {
      if (labels === null || labels === undefined) {
        // kube reads the namespace only when the selector is not empty: a missing one is a 404 then.
        if (!isEmpty(c.namespaceSelector)) deferred = notFound({ group: '', resource: 'namespaces' }, nsSource.from === 'namespace' ? nsSource.name : '');
      } else if (!namespaceSelectorMatches(c.namespaceSelector, labels)) return { matches: false };
    }
  } catch (e) {
    deferred = internalError(String((e as Error).message ?? e));
  }
  try {
    if (!objectSelectorMatches(c.objectSelector, a.object, a.oldObject)) return { matches: false };
  } catch (e) {
    deferred ??= internalError(String((e as Error).message ?? e));
  }
  const matchOne = c.named ? namedRuleMatches : ruleMatches;
  const equivalent = (c.matchPolicy ?? 'Equivalent') === 'Equivalent';
  const candidates = equivalent ? equivalentTypes(a.type) : [a.type];
  if (c.excludeRules?.length) {
    for (const t of [a.type, ...candidates.filter((x) => x !== a.type)]) {
      const ra = ruleAttributes(a, gvrOf(t));
      if (c.excludeRules.some((r) => matchOne(r, ra))) return { matches: false };
    }
  }
  let invocation: Invocation | undefined;
  const exact = ruleAttributes(a);
  if (c.rules.some((r) => matchOne(r, exact))) invocation = { resource: gvrOf(a.type), kind: kindOf(a.type, a.subresource), type: a.type };
  if (!invocation && equivalent) {
    // Earlier rules first, as kube.
    outer: for (const r of c.rules) {
      for (const t of candidates) {
        if (t === a.type || (t.group === a.type.group && t.version === a.type.version && t.resource === a.type.resource)) continue;
        if (matchOne(r, ruleAttributes(a, gvrOf(t)))) {
          invocation = { resource: gvrOf(t), kind: kindOf(t, a.subresource), type: t };
          break outer;
        }
      }
    }
  }
  if (!invocation) return { matches: false };
  if (deferred) return { matches: 'error', status: deferred };
  return { matches: true, invocation };
}

const isEmpty = (s: LabelSelectorSpec | null | undefined) =>
  !s || (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0);

/** The namespace whose labels matchRequest needs for these criteria, if any (read it, then pass its labels). */
export function namespaceToRead(c: Pick<MatchCriteria, 'namespaceSelector'>, a: RequestAttributes): string | undefined {
  const s = namespaceLabelSource(a);
  return s.from === 'namespace' && !isEmpty(c.namespaceSelector) ? s.name : undefined;
}
