// Core: the CustomResourceDefinition strategy (apiextensions-apiserver pkg/registry/customresourcedefinition/
// strategy.go and the finalizer controller's first step): a CRD decodes as any built-in (its Go types are in the
// generated definitions); before storage it is defaulted and validated, and its names are accepted against the
// other CRDs (crd-status.ts); a DELETE adds the cleanup finalizer and the Terminating condition.

import { RESOURCE_TYPES } from '../registry';
import { invalid, StatusError } from '../status';
import { CLEANUP_FINALIZER, CRD_GROUP, type Crd } from '../crd/crd-object';
import { computeCrdStatus, setCondition } from '../crd/crd-status';
import { compileSchemaRules, unsupportedRules } from '../crd/cel/compile';
import { defaultCrd, validateCrd } from '../crd/validate-crd';
import { DEFAULT_STRATEGY } from './default';
import type { WriteStrategy } from './strategy';

// Rules calling kube CEL functions this server lacks are stored but not evaluated: the CRD write says which.
function unsupportedRuleWarnings(crd: Crd): string[] {
  const out: string[] = [];
  (crd.spec.versions ?? []).forEach((v, i) => {
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) return;
    const { tree } = compileSchemaRules(schema, `spec.versions[${i}].schema.openAPIV3Schema`);
    for (const { path, rule, functions } of tree ? unsupportedRules(tree) : []) {
      out.push(`${path}: rule ${JSON.stringify(rule)} is not enforced: this server does not support ${functions.join(', ')}`);
    }
  });
  return out;
}

export const CRD_STRATEGY: WriteStrategy = {
  ...DEFAULT_STRATEGY,
  beforeStore(obj, old, subresource, env) {
    const crd = obj as Crd;
    crd.spec ??= {};
    if (subresource === 'status') return; // a status write keeps the spec; kube's controllers own status
    defaultCrd(crd);
    if (!old) delete crd.status;
    const causes = validateCrd(crd, old as Crd | undefined);
    if (causes.length) throw new StatusError(invalid(CRD_GROUP, 'CustomResourceDefinition', crd.metadata.name ?? '', causes));
    if (crd.metadata.deletionTimestamp) return; // a terminating CRD keeps its names
    const others: Crd[] = [];
    for (const o of env.objects()) others.push(o as Crd);
    computeCrdStatus(crd, old as Crd | undefined, others, RESOURCE_TYPES, env.now);
    for (const w of unsupportedRuleWarnings(crd)) env.warnings?.push(w);
  },
  beforeDelete(current, env) {
    const crd = structuredClone(current) as Crd;
    const finalizers = crd.metadata.finalizers ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) crd.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
    setCondition(crd, {
      type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    }, env.now);
    return crd;
  },
};
