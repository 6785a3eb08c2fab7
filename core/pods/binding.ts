// Canonical layer: the pods/binding subresource (kube's BindingREST, pkg/registry/core/pod/storage/storage.go):
// POST /api/v1/namespaces/<ns>/pods/<name>/binding with a core/v1 Binding assigns an unbound pod to a node
// in one atomic update — spec.nodeName, the binding's annotations, and PodScheduled=True — and answers
// 201 with a Success Status. Failures of the assignment itself are 409 Conflicts on "pods/binding".

import { badRequest, conflict, invalid, notFound, StatusError } from '../status';
import { timestamp, type KubeObject } from '../object-meta';

interface Binding {
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; annotations?: Record<string, string> };
  target?: { kind?: string; name?: string };
}

interface PodCondition { type: string; status: string; lastProbeTime?: string | null; lastTransitionTime?: string; reason?: string; message?: string }

const BINDING_TARGET = { group: '', resource: 'pods/binding' };

function parseBinding(body: string): Binding {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new StatusError(badRequest('Binding must be an object'));
  return parsed as Binding;
}

/** ValidatePodBinding (pkg/apis/core/validation): target.kind empty or Node, target.name required. */
function validateBinding(b: Binding, name: string): void {
  const causes = [];
  const kind = b.target?.kind ?? '';
  if (kind !== '' && kind !== 'Node') {
    causes.push({ reason: 'FieldValueNotSupported', field: 'target.kind', message: `Unsupported value: "${kind}": supported values: "Node"` });
  }
  if (!b.target?.name) causes.push({ reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' });
  if (causes.length) throw new StatusError(invalid('', 'Binding', name, causes));
}

/**
 * The pod bound as `body` asks, or a StatusError: `current` is the stored pod (undefined when missing),
 * `name` the pod name of the URL.
 */
export function bindPod(current: KubeObject | undefined, name: string, body: string, now: number): KubeObject {
  const binding = parseBinding(body);
  // BindingREST.Create: the Binding names the pod it binds.
  if (binding.metadata?.name !== undefined && binding.metadata.name !== name) {
    throw new StatusError(badRequest('name in URL does not match name in Binding object'));
  }
  validateBinding(binding, name);
  if (!current) throw new StatusError(notFound({ group: '', resource: 'pods' }, name));
  const m = binding.metadata ?? {};
  // setPodHostAndAnnotations: UID/RV preconditions, then the checks that make binding once-only.
  if (m.uid && m.uid !== current.metadata.uid) {
    throw new StatusError(conflict(BINDING_TARGET, name, `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${current.metadata.uid}`));
  }
  if (m.resourceVersion && m.resourceVersion !== current.metadata.resourceVersion) {
    throw new StatusError(conflict(BINDING_TARGET, name,
      `Precondition failed: ResourceVersion in precondition: ${m.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`));
  }
  if (current.metadata.deletionTimestamp) {
    throw new StatusError(conflict(BINDING_TARGET, name, `pod ${name} is being deleted, cannot be assigned to a host`));
  }
  const spec = (current.spec ?? {}) as { nodeName?: string; schedulingGates?: unknown[] };
  if (spec.nodeName) throw new StatusError(conflict(BINDING_TARGET, name, `pod ${name} is already assigned to node "${spec.nodeName}"`));
  if (spec.schedulingGates?.length) throw new StatusError(conflict(BINDING_TARGET, name, `pod ${name} has non-empty .spec.schedulingGates`));

  const next = structuredClone(current);
  (next.spec as Record<string, unknown>).nodeName = binding.target!.name;
  if (m.annotations && Object.keys(m.annotations).length) {
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), ...m.annotations };
  }
  const status = ((next.status ??= {}) as { conditions?: PodCondition[] });
  const conditions = status.conditions ?? [];
  const prior = conditions.find((c) => c.type === 'PodScheduled');
  const scheduled: PodCondition = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: timestamp(now) };
  // UpdatePodCondition: the transition time moves only when the status does.
  if (prior?.status === 'True' && prior.lastTransitionTime) scheduled.lastTransitionTime = prior.lastTransitionTime;
  status.conditions = prior ? conditions.map((c) => (c === prior ? scheduled : c)) : [...conditions, scheduled];
  return next;
}
