// Core: PriorityClass validation with kube-apiserver's (v1.32) messages (pkg/apis/scheduling/validation
// ValidatePriorityClass, ValidatePriorityClassUpdate; IsKnownSystemPriorityClass's errors).
import { SYSTEM_PRIORITY_CLASSES } from '../priority-classes';
import { forbidden, invalidValue, notSupported } from './names';
import type { Causes, Obj } from './shape';

const SYSTEM_PREFIX = 'system-';
const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

/** IsKnownSystemPriorityClass: undefined when it is one, else its error. */
function systemClassError(name: string, value: unknown, globalDefault: unknown): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (value !== known.value) return `value of ${name} PriorityClass must be ${known.value}`;
  if ((globalDefault ?? false) !== false) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(v: Causes, obj: Obj, old?: Obj): void {
  const meta = (obj.metadata ?? {}) as { name?: unknown };
  if (old) {
    if (obj.value !== old.value) v.add(forbidden('value', 'may not be changed in an update.'));
    if ((obj.preemptionPolicy ?? null) !== (old.preemptionPolicy ?? null)) v.add(invalidValue('preemptionPolicy', obj.preemptionPolicy ?? null, 'field is immutable'));
    return;
  }
  const name = typeof meta.name === 'string' ? meta.name : '';
  if (name.startsWith(SYSTEM_PREFIX)) {
    const err = systemClassError(name, obj.value, obj.globalDefault);
    if (err) v.add(forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${err}`));
  } else if (typeof obj.value === 'number' && obj.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    v.add(forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const policy = obj.preemptionPolicy;
  if (policy !== undefined && policy !== null && !PREEMPTION_POLICIES.includes(policy as string)) v.add(notSupported('preemptionPolicy', policy, PREEMPTION_POLICIES));
}
