// Canonical layer: the autoscaling/v1 Scale view of a workload (deployments/scale etc.), so that
// `kubectl scale` reads and writes spec.replicas without touching the rest of the object.

import type { KubeObject } from './object-meta';
import { formatLabelSelector } from './selectors/label-selector';

export function scaleOf(obj: KubeObject): KubeObject {
  const spec = (obj.spec ?? {}) as { replicas?: number; selector?: Parameters<typeof formatLabelSelector>[0] };
  const status = (obj.status ?? {}) as { replicas?: number };
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: spec.replicas ?? 0 },
    status: { replicas: status.replicas ?? 0, selector: spec.selector ? formatLabelSelector(spec.selector) : '' },
  };
}

/** The workload with the Scale's spec.replicas applied; everything else stays. */
export function withScale(obj: KubeObject, scale: KubeObject): KubeObject {
  const next = structuredClone(obj);
  const replicas = (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
  next.spec = { ...((next.spec as object) ?? {}), replicas };
  next.metadata.resourceVersion = scale.metadata?.resourceVersion || obj.metadata.resourceVersion;
  return next;
}
