// Core: namespaceSelector and objectSelector as kube's webhook and policy matchers test them (apiserver/pkg/
// admission/plugin/webhook/predicates/namespace/matcher.go and predicates/object/matcher.go).

import type { KubeObject } from '../../object-meta';
import { matchesLabels, selectorFromLabelSelector, type LabelSelector, type LabelSelectorSpec } from '../../selectors/label-selector';
import type { RequestAttributes } from './attributes';

/** Where namespaceSelector reads labels for a request. */
export type NamespaceLabelSource =
  /** A cluster-scoped object that is not a Namespace: the selector always matches. */
  | { from: 'none' }
  /** A Namespace being created or updated: its own new labels (the stored namespace is not current yet). */
  | { from: 'object'; labels: Record<string, string> }
  /** Any other request: the labels of the stored namespace of this name. */
  | { from: 'namespace'; name: string };

export function namespaceLabelSource(a: RequestAttributes): NamespaceLabelSource {
  const isNamespace = a.type.group === '' && a.type.resource === 'namespaces';
  if (!a.namespace && !isNamespace) return { from: 'none' };
  if (isNamespace && !a.subresource && (a.operation === 'CREATE' || a.operation === 'UPDATE')) {
    return { from: 'object', labels: a.object?.metadata?.labels ?? {} };
  }
  return { from: 'namespace', name: a.namespace };
}

// One parsed selector per spec object (configurations are cached objects, so this parses each once).
const parsed = new WeakMap<object, LabelSelector>();

/** A v1 selector (defaulted to `{}`, which matches everything) as a parsed selector; throws SelectorError. */
export function parsedSelector(spec: LabelSelectorSpec | null | undefined): LabelSelector | undefined {
  if (!spec) return undefined;
  let sel = parsed.get(spec);
  if (!sel) parsed.set(spec, (sel = selectorFromLabelSelector(spec)));
  return sel;
}

export const isEmptySelector = (spec: LabelSelectorSpec | null | undefined) =>
  !spec || (Object.keys(spec.matchLabels ?? {}).length === 0 && (spec.matchExpressions ?? []).length === 0);

/** The namespace's labels match (`labels` from namespaceLabelSource, read by the caller when from a namespace). */
export function namespaceSelectorMatches(spec: LabelSelectorSpec | null | undefined, labels: Record<string, string>): boolean {
  if (isEmptySelector(spec)) return true;
  return matchesLabels(parsedSelector(spec)!, labels);
}

/** objectSelector: the new or the old object's labels match (either suffices; neither when both are absent). */
export function objectSelectorMatches(spec: LabelSelectorSpec | null | undefined, object: KubeObject | null, oldObject: KubeObject | null): boolean {
  if (isEmptySelector(spec)) return true;
  const sel = parsedSelector(spec)!;
  const test = (o: KubeObject | null) => !!o && typeof o.metadata === 'object' && o.metadata !== null && matchesLabels(sel, o.metadata.labels ?? {});
  return test(object) || test(oldObject);
}
