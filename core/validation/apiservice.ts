// Core: APIService validation with kube-aggregator's (v1.32) messages (pkg/apis/apiregistration/validation
// ValidateAPIService): the name must be `<version>.<group>` (so the core group's is "v1."), priorities in range,
// and insecureSkipTLSVerify and caBundle exclusive.
import { invalidValue } from './names';
import type { Causes, Obj } from './shape';

export function validateAPIService(v: Causes, obj: Obj): void {
  const spec = (typeof obj.spec === 'object' && obj.spec !== null ? obj.spec : {}) as Obj;
  const name = (obj.metadata as { name?: unknown } | undefined)?.name;
  const required = `${String(spec.version ?? '')}.${String(spec.group ?? '')}`;
  if (typeof name === 'string' && name !== '' && name !== required) {
    v.add(invalidValue('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  }
  const gp = spec.groupPriorityMinimum;
  if (typeof gp === 'number' && (gp <= 0 || gp > 20000)) v.add(invalidValue('spec.groupPriorityMinimum', gp, 'must be positive and less than 20000'));
  const vp = spec.versionPriority;
  if (typeof vp === 'number' && (vp <= 0 || vp > 1000)) v.add(invalidValue('spec.versionPriority', vp, 'must be positive and less than 1000'));
  if (spec.insecureSkipTLSVerify === true && typeof spec.caBundle === 'string' && spec.caBundle.length > 0) {
    v.add(invalidValue('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
}
