// Core: the PersistentVolumeClaimResize admission plugin as kube 1.32's (plugin/pkg/admission/storage/
// persistentvolume/resize): an update that grows spec.resources.requests.storage is allowed only for a claim that
// was Bound and whose class — the same before and after, never "" — is a StorageClass with
// allowVolumeExpansion: true; otherwise 403 with kube's messages. Shrinking is validation's business
// (core/admission/immutable.ts), as in kube.

import { compareQuantity, parseQuantity } from '../../quantity';
import { admissionForbidden, missingInput, type AdmissionPlugin } from '../attributes';
import { claimClassName, isClaim } from './default-storage-class';

type Obj = Record<string, any>;

/** The claim's requested storage, or undefined when absent or unreadable (validation words that). */
export function requestedStorage(pvc: Obj | undefined): ReturnType<typeof parseQuantity> | undefined {
  const v = pvc?.spec?.resources?.requests?.storage;
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  try {
    return parseQuantity(String(v));
  } catch {
    return undefined;
  }
}

/** newSize.Cmp(oldSize) > 0, a missing size counting as zero. */
export function grows(pvc: Obj, old: Obj): boolean {
  const now = requestedStorage(pvc);
  if (!now) return false;
  const before = requestedStorage(old);
  return before ? compareQuantity(now, before) > 0 : true;
}

export const pvcResizePlugin: AdmissionPlugin = {
  name: 'PersistentVolumeClaimResize',
  handles: (a) => a.operation === 'UPDATE' && a.subresource === '' && isClaim(a) && !!a.oldObject,
  validate(a, inputs) {
    const pvc = a.object as Obj;
    const old = a.oldObject as Obj;
    if (!grows(pvc, old)) return;
    if (old.status?.phase !== 'Bound') throw admissionForbidden(a, 'Only bound persistent volume claims can be expanded');
    const cls = claimClassName(pvc);
    const oldCls = claimClassName(old);
    let allowed = false;
    if (cls && cls === oldCls) {
      const classes = inputs.storageClasses;
      if (!classes) throw missingInput('PersistentVolumeClaimResize', 'storage classes');
      const sc = classes.find((c) => c.metadata.name === cls) as Obj | undefined;
      allowed = sc?.allowVolumeExpansion === true;
    }
    if (!allowed) {
      throw admissionForbidden(a, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  },
};
