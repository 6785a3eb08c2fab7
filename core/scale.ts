// Canonical layer: the autoscaling/v1 Scale view of a workload (deployments/scale etc.), so that
// `kubectl scale` reads and writes spec.replicas without touching the rest of the object. Custom
// resources name their own paths (CRD subresources.scale), read as apiextensions registry/customresource
// etcd.go scaleFromCustomResource does.

import type { KubeObject } from './object-meta';
import { formatLabelSelector } from './selectors/label-selector';
import { internalError, StatusError } from './status';

/** A CRD's scale subresource: simple JSON paths such as `.spec.replicas`. */
export interface ScalePaths {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

function at(obj: unknown, path: string | undefined): unknown {
  if (!path) return undefined;
  let cur: unknown = obj;
  for (const part of path.slice(1).split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function scaleOf(obj: KubeObject, paths?: ScalePaths): KubeObject {
  const m = obj.metadata;
  const metadata = {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    creationTimestamp: m.creationTimestamp,
  };
  if (paths) {
    const spec = at(obj, paths.specReplicasPath);
    if (spec === undefined) throw new StatusError(internalError(`the spec replicas field "${paths.specReplicasPath}" does not exist`));
    const status = at(obj, paths.statusReplicasPath);
    const selector = at(obj, paths.labelSelectorPath);
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata,
      spec: { replicas: spec },
      status: { replicas: typeof status === 'number' ? status : 0, selector: typeof selector === 'string' ? selector : '' },
    };
  }
  const spec = (obj.spec ?? {}) as { replicas?: number; selector?: Parameters<typeof formatLabelSelector>[0] };
  const status = (obj.status ?? {}) as { replicas?: number };
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: { replicas: spec.replicas ?? 0 },
    status: { replicas: status.replicas ?? 0, selector: spec.selector ? formatLabelSelector(selectorSpec(obj.kind, spec.selector)) : '' },
  };
}

// A ReplicationController's selector is a plain label map (labels.SelectorFromSet), not a LabelSelector.
function selectorSpec(kind: string | undefined, selector: Parameters<typeof formatLabelSelector>[0]): Parameters<typeof formatLabelSelector>[0] {
  return kind === 'ReplicationController' ? { matchLabels: selector as Record<string, string> } : selector;
}

/** The workload with the Scale's spec.replicas applied; everything else stays. */
export function withScale(obj: KubeObject, scale: KubeObject, paths?: ScalePaths): KubeObject {
  const next = structuredClone(obj);
  const replicas = (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
  if (paths?.specReplicasPath) {
    const parts = paths.specReplicasPath.slice(1).split('.');
    let cur = next as unknown as Record<string, unknown>;
    for (const part of parts.slice(0, -1)) {
      if (cur[part] === null || typeof cur[part] !== 'object') cur[part] = {};
      cur = cur[part] as Record<string, unknown>;
    }
    cur[parts[parts.length - 1]] = replicas;
  } else {
    next.spec = { ...((next.spec as object) ?? {}), replicas };
  }
  next.metadata.resourceVersion = scale.metadata?.resourceVersion || obj.metadata.resourceVersion;
  return next;
}
