// Scheduler: spec.nodeSelector and node affinity against a node's labels (component-helpers
// scheduling/corev1/nodeaffinity): terms are ORed, a term's expressions ANDed; an empty term matches nothing.

import type { KubeObject } from '../../client/types';

export interface NodeSelectorRequirement { key: string; operator: string; values?: string[] }
export interface NodeSelectorTerm { matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }
interface PreferredTerm { weight: number; preference: NodeSelectorTerm }
interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
    preferredDuringSchedulingIgnoredDuringExecution?: PreferredTerm[];
  };
}

const asInt = (s: string | undefined): number | undefined => (s !== undefined && /^-?\d+$/.test(s) ? Number(s) : undefined);

export function requirementMatches(r: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels[r.key] : undefined;
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In': return has && values.includes(v!);
    case 'NotIn': return !has || !values.includes(v!);
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    case 'Gt':
    case 'Lt': {
      const have = asInt(v);
      const want = asInt(values[0]);
      if (have === undefined || want === undefined || values.length !== 1) return false;
      return r.operator === 'Gt' ? have > want : have < want;
    }
    default: return false;
  }
}

export function termMatches(term: NodeSelectorTerm, node: KubeObject): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (!exprs.length && !fields.length) return false;
  const labels = (node.metadata.labels ?? {}) as Record<string, string>;
  if (!exprs.every((r) => requirementMatches(r, labels))) return false;
  // matchFields supports metadata.name only.
  return fields.every((r) => r.key === 'metadata.name' && (r.operator === 'In' || r.operator === 'NotIn') && requirementMatches(r, { 'metadata.name': node.metadata.name! }));
}

/** nodeSelector and required node affinity both hold (the NodeAffinity filter). */
export function matchesNodeSelectorAndAffinity(pod: KubeObject, node: KubeObject): boolean {
  const spec = (pod.spec ?? {}) as { nodeSelector?: Record<string, string>; affinity?: Affinity };
  const labels = (node.metadata.labels ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t) => termMatches(t, node));
}

/** The sum of the weights of the preferred terms the node matches (NodeAffinity score, before normalizing). */
export function preferredAffinityWeight(pod: KubeObject, node: KubeObject): number {
  const preferred = ((pod.spec ?? {}) as { affinity?: Affinity }).affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  return preferred.reduce((sum, p) => sum + (termMatches(p.preference, node) ? p.weight : 0), 0);
}
