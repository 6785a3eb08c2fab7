// Canonical layer: the Priority admission plugin (kubernetes plugin/pkg/admission/priority, 1.32) for pod
// creates: spec.priorityClassName names a PriorityClass whose value becomes spec.priority and whose
// preemptionPolicy becomes spec.preemptionPolicy; without a name, the globalDefault class (the lowest-valued of
// several) is used, or priority 0 with PreemptLowerPriority. A name that does not exist, or a priority or
// preemptionPolicy in the pod that differs from the class's, is refused with 403 as kube refuses it.

import { forbidden, StatusError } from '../status';

export interface PriorityClassView {
  metadata?: { name?: string; creationTimestamp?: string };
  value?: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

interface PodView { metadata?: { name?: string; generateName?: string }; spec?: { priorityClassName?: string; priority?: number | null; preemptionPolicy?: string | null } }

const PODS = { group: '', resource: 'pods' };

/** getDefaultPriority: the global default class of lowest value, if any. Linear in the classes. */
export function defaultPriorityClass(classes: PriorityClassView[]): PriorityClassView | undefined {
  let best: PriorityClassView | undefined;
  for (const pc of classes) if (pc.globalDefault && (!best || (pc.value ?? 0) < (best.value ?? 0))) best = pc;
  return best;
}

/** Sets the pod's priority fields in place; throws kube's 403 for a bad class or a conflicting value. */
export function admitPodPriority(pod: PodView, classes: PriorityClassView[]): void {
  const spec = (pod.spec ??= {});
  const name = pod.metadata?.name ?? pod.metadata?.generateName ?? '';
  let priority: number, policy: string;
  if (!spec.priorityClassName) {
    const def = defaultPriorityClass(classes);
    priority = def?.value ?? 0;
    policy = def?.preemptionPolicy ?? 'PreemptLowerPriority';
    if (def?.metadata?.name) spec.priorityClassName = def.metadata.name;
  } else {
    const pc = classes.find((c) => c.metadata?.name === spec.priorityClassName);
    if (!pc) throw new StatusError(forbidden(PODS, name, `no PriorityClass with name ${spec.priorityClassName} was found`));
    priority = pc.value ?? 0;
    policy = pc.preemptionPolicy ?? 'PreemptLowerPriority';
  }
  if (spec.priority != null && spec.priority !== priority) {
    throw new StatusError(forbidden(PODS, name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`));
  }
  spec.priority = priority;
  if (spec.preemptionPolicy != null && spec.preemptionPolicy !== policy) {
    throw new StatusError(forbidden(PODS, name, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`));
  }
  spec.preemptionPolicy = policy;
}
