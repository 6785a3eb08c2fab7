// Core: the Priority admission plugin as kube 1.32's (plugin/pkg/admission/priority/admission.go): a pod created
// with priorityClassName gets that class's value and preemptionPolicy, refused when the class does not exist or
// when the pod already states a different value; without a class it gets the globalDefault class's (the lowest
// valued one, should a race have made several), else priority 0 and PreemptLowerPriority. An update keeps the
// values the create set. A PriorityClass may be globalDefault only while no other one is.

import type { KubeObject } from '../../object-meta';
import { admissionForbidden, isPod, missingInput, type AdmissionAttributes, type AdmissionInputs, type AdmissionPlugin } from '../attributes';

type Obj = Record<string, any>;

// scheduling.DefaultPriorityWhenNoDefaultClassExists
const DEFAULT_PRIORITY = 0;

const isPriorityClass = (a: AdmissionAttributes) => a.type.group === 'scheduling.k8s.io' && a.type.kind === 'PriorityClass';

export const priorityPlugin: AdmissionPlugin = {
  name: 'Priority',
  // Subresources are ignored.
  handles: (a) => a.subresource === '' && (isPod(a) || isPriorityClass(a)),
  admit(a, inputs) {
    if (isPod(a)) admitPod(a, inputs);
  },
  validate(a, inputs) {
    if (isPriorityClass(a)) validatePriorityClass(a, inputs);
  },
};

function admitPod(a: AdmissionAttributes, inputs: AdmissionInputs): void {
  const spec = ((a.object as Obj).spec ??= {}) as Obj;
  if (a.operation === 'UPDATE') {
    // Validation refuses changes to both; an update that leaves them out keeps the create's.
    const old = ((a.oldObject as Obj | undefined)?.spec ?? {}) as Obj;
    if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
    if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
    return;
  }
  const classes = inputs.priorityClasses;
  if (!classes) throw missingInput('Priority', 'priority classes');
  let priority: number;
  let preemptionPolicy: string | undefined;
  if (!spec.priorityClassName) {
    const dpc = defaultClass(classes);
    if (dpc) {
      spec.priorityClassName = dpc.metadata.name;
      priority = valueOf(dpc);
      preemptionPolicy = (dpc as Obj).preemptionPolicy;
    } else {
      // getDefaultPriority: no class name is set in this case.
      priority = DEFAULT_PRIORITY;
      preemptionPolicy = 'PreemptLowerPriority';
    }
  } else {
    const pc = classes.find((c) => c.metadata?.name === spec.priorityClassName);
    if (!pc) throw admissionForbidden(a, `no PriorityClass with name ${spec.priorityClassName} was found`);
    priority = valueOf(pc);
    preemptionPolicy = (pc as Obj).preemptionPolicy;
  }
  if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
    throw admissionForbidden(a, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
  }
  spec.priority = priority;
  if (preemptionPolicy !== undefined && preemptionPolicy !== null) {
    if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== preemptionPolicy) {
      throw admissionForbidden(a, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`);
    }
    spec.preemptionPolicy = preemptionPolicy;
  }
}

function validatePriorityClass(a: AdmissionAttributes, inputs: AdmissionInputs): void {
  if ((a.object as Obj).globalDefault !== true) return;
  const classes = inputs.priorityClasses;
  if (!classes) throw missingInput('Priority', 'priority classes');
  const dpc = defaultClass(classes);
  if (dpc && (a.operation === 'CREATE' || dpc.metadata.name !== a.object.metadata.name)) {
    throw admissionForbidden(a, `PriorityClass ${dpc.metadata.name} is marked as default. Only one default can exist`);
  }
}

/** getDefaultPriorityClass: of several globalDefault classes, the lowest valued. */
export function defaultClass(classes: readonly KubeObject[]): KubeObject | undefined {
  let found: KubeObject | undefined;
  for (const c of classes) {
    if ((c as Obj).globalDefault === true && (!found || valueOf(found) > valueOf(c))) found = c;
  }
  return found;
}

function valueOf(pc: KubeObject): number {
  const v = (pc as Obj).value;
  return typeof v === 'number' ? v : 0;
}
