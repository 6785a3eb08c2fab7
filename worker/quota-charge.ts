// Front door: ResourceQuota's charge (kube's quota admission controller, plugin/pkg/admission/resourcequota/
// controller.go): a create — or an update of a Service or claim — the namespace's quotas may limit is first admitted as a dry run (the whole chain, so
// the object is final — defaulted, LimitRanger's requests set), its usage is then added to each quota's
// status.used with the quota's resourceVersion as precondition (a concurrent charge makes it re-read and
// re-check, so two creates never both take the last unit), and only then written. As in kube, a write that fails
// after its charge leaves the charge until the quota controller recounts (controllers/resourcequota.ts).

import { groupResource, lookupGroupResource, type ResourceType } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import type { AdmissionInputs } from '../core/admission/attributes';
import { chargedOnUpdate, quotaCharges, type QuotaCharge } from '../core/admission/plugins/resource-quota';
import type { AdmissionAttributes } from '../core/admission/attributes';
import { withPrecondition } from './admission-webhooks';
import { countName, matchingResources } from '../core/quota/usage';
import { resourceMap } from '../core/admission/resource-lists';
import { StatusError, type Result } from '../core/status';
import type { WriteRequest } from '../core/writes';
import type { StoreReply, WriteOptions } from '../contract/rpc';
import type { Bindings } from './env';
import { isApplyPatch } from '../core/apply/apply-body';
import { storeFor } from './stores';

const QUOTAS = lookupGroupResource('core/resourcequotas')!;
// kube's quota evaluator retries a conflicting status update a few times before giving up.
const CHARGE_ATTEMPTS = 5;

/** Whether any of the quotas limits a resource objects of `type` use (`onUpdate`: one an update can raise, not a count). */
export function quotasApply(type: ResourceType, quotas: readonly KubeObject[] | undefined, onUpdate = false): boolean {
  return !!quotas?.some((q) => matchingResources(type, Object.keys(resourceMap((q as { status?: { hard?: unknown } }).status?.hard)))
    .some((name) => !onUpdate || !(name === countName(type) || name === type.resource || name.endsWith('/persistentvolumeclaims'))));
}

/** The write, with the namespace's quotas charged first when they limit it (not for dry runs, as kube). */
export async function writeCharged(env: Bindings, type: ResourceType, req: WriteRequest, options: WriteOptions & { admission?: AdmissionInputs }): Promise<Result<StoreReply>> {
  const store = storeFor(env, type);
  const gr = groupResource(type);
  const inputs = options.admission;
  if (options.dryRun || !inputs || !quotasApply(type, inputs.resourceQuotas) || !(req.verb === 'create' || req.verb === 'patch' || req.verb === 'update')) {
    return store.write(gr, req, options);
  }
  const apply = req.verb === 'patch' && isApplyPatch(req.patchType);
  if (req.verb !== 'create' && !apply && (req.subresource || !chargedOnUpdate(type) || !quotasApply(type, inputs.resourceQuotas, true))) {
    return store.write(gr, req, options); // an update no evaluator charges, or that no quota limits
  }
  for (let attempt = 1; ; attempt++) {
    const trial = await store.write(gr, req, { ...options, dryRun: true });
    if (!trial.ok) return trial;
    const object = JSON.parse(trial.value.body) as KubeObject;
    if (trial.value.code === 201) {
      const attrs = { operation: 'CREATE' as const, type, namespace: object.metadata.namespace ?? '', subresource: '', object, dryRun: false };
      await charge(env, attrs, inputs.resourceQuotas!);
      return store.write(gr, req, { ...options, admission: { ...inputs, quotaCharged: true } });
    }
    // An update (or an apply that updated): charged what it uses beyond the object it replaces, which the dry run
    // was applied to (its resourceVersion); the write is then made conditional on that version.
    if (!chargedOnUpdate(type) || (req.verb !== 'patch' && req.verb !== 'update') || req.subresource) return store.write(gr, req, options);
    const rv = object.metadata.resourceVersion;
    const current = await store.get(gr, { namespace: req.namespace, name: object.metadata.name!, subresource: '' });
    if (!current.ok) return current;
    const old = JSON.parse(current.value.body) as KubeObject;
    if (old.metadata.resourceVersion !== rv) {
      if (attempt < CHARGE_ATTEMPTS) continue; // written meanwhile: judge the newer object
      return store.write(gr, req, options);
    }
    const attrs = { operation: 'UPDATE' as const, type, namespace: req.namespace, subresource: '', object, oldObject: old, dryRun: false };
    if (!(await charge(env, attrs, inputs.resourceQuotas!))) return store.write(gr, req, options);
    const { req: guarded, own } = withPrecondition(req, old);
    const written = await store.write(gr, guarded, { ...options, admission: { ...inputs, quotaCharged: true } });
    // Our own precondition lost to a concurrent write: judge again (the charge stays until the controller recounts).
    if (!written.ok && written.status.code === 409 && own && attempt < CHARGE_ATTEMPTS) continue;
    return written;
  }
}

/** Charges every quota the object falls under (throws kube's refusal); false when it charges none. */
async function charge(env: Bindings, attrs: AdmissionAttributes, quotas: readonly KubeObject[]): Promise<boolean> {
  const charges = quotaCharges(attrs, quotas);
  for (const first of charges) {
    let next: QuotaCharge | undefined = first;
    for (let attempt = 1; next; attempt++) {
      const res = await chargeOne(env, next);
      if (res.ok) break;
      if (res.status.code !== 409 || attempt >= CHARGE_ATTEMPTS) throw new StatusError(res.status);
      // Another write changed the quota: re-read it and check again (this may now refuse).
      const fresh = await storeFor(env, QUOTAS).get(groupResource(QUOTAS), { namespace: attrs.namespace, name: first.quota.metadata.name!, subresource: '' });
      if (!fresh.ok) throw new StatusError(fresh.status);
      next = quotaCharges(attrs, [JSON.parse(fresh.value.body) as KubeObject])[0];
    }
  }
  return charges.length > 0;
}

/** Raises one quota's status.used, guarded by the resourceVersion it was read at. */
function chargeOne(env: Bindings, { quota, used }: QuotaCharge): Promise<Result<StoreReply>> {
  const next = { ...quota, status: { ...(quota as { status?: object }).status, used } };
  return storeFor(env, QUOTAS).write(groupResource(QUOTAS), {
    verb: 'update', namespace: quota.metadata.namespace ?? '', name: quota.metadata.name!, subresource: 'status', body: JSON.stringify(next),
    fieldManager: 'kube-apiserver',
  });
}
