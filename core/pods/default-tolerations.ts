// Canonical layer: kube-apiserver's DefaultTolerationSeconds admission plugin
// (plugin/pkg/admission/defaulttolerationseconds/admission.go). A new pod that does not already tolerate
// them gets NoExecute tolerations of the not-ready and unreachable node taints for a bounded time
// (--default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds, 300 by default;
// here one setting, DEFAULT_TOLERATION_SECONDS), so the taint-eviction controller evicts pods from a lost
// node after that long rather than at once.

import type { KubeObject } from '../object-meta';

export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
export const DEFAULT_TOLERATION_SECONDS = 300;

interface Toleration { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }

/** Adds the two tolerations a pod lacks (in place), as the admission plugin does on create. */
export function addDefaultTolerations(pod: KubeObject, seconds = DEFAULT_TOLERATION_SECONDS): void {
  const spec = (pod.spec ??= {}) as { tolerations?: Toleration[] };
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  // The plugin's own test: a toleration with this key (or any key) and NoExecute (or any) effect.
  const tolerates = (key: string) => tolerations.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
  const added = [NOT_READY_TAINT, UNREACHABLE_TAINT].filter((key) => !tolerates(key))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds }));
  if (added.length) spec.tolerations = [...tolerations, ...added];
}
