// Core: the DefaultStorageClass admission plugin as kube 1.32's (plugin/pkg/admission/storage/storageclass/
// setdefault, with storage/util GetDefaultClass): a PersistentVolumeClaim created without a class — no
// spec.storageClassName (nil; "" is a choice) and no beta class annotation — gets the default StorageClass, the one
// annotated storageclass.kubernetes.io/is-default-class (or the beta key) "true"; of several, the newest, then the
// first by name; none: the claim is left without a class (the PV controller sets it retroactively later).

import type { KubeObject } from '../../object-meta';
import { missingInput, type AdmissionPlugin } from '../attributes';

type Obj = Record<string, any>;

export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
export const BETA_DEFAULT_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

const annotationsOf = (o: KubeObject | Obj | undefined): Record<string, unknown> => ((o as Obj | undefined)?.metadata?.annotations ?? {}) as Record<string, unknown>;

/** storageutil.IsDefaultAnnotation. */
export const isDefaultStorageClass = (sc: KubeObject): boolean =>
  annotationsOf(sc)[DEFAULT_CLASS_ANNOTATION] === 'true' || annotationsOf(sc)[BETA_DEFAULT_CLASS_ANNOTATION] === 'true';

/** GetDefaultClass: of the default classes, the newest (creationTimestamp), then the first by name. Linear. */
export function defaultStorageClass(classes: readonly KubeObject[]): KubeObject | undefined {
  let best: KubeObject | undefined;
  for (const sc of classes) {
    if (!isDefaultStorageClass(sc)) continue;
    if (!best) {
      best = sc;
      continue;
    }
    const a = Date.parse(String(sc.metadata.creationTimestamp ?? '')) || 0;
    const b = Date.parse(String(best.metadata.creationTimestamp ?? '')) || 0;
    if (a > b || (a === b && (sc.metadata.name ?? '') < (best.metadata.name ?? ''))) best = sc;
  }
  return best;
}

/** helper.PersistentVolumeClaimHasClass: the beta annotation, or spec.storageClassName set (even to ""). */
export function claimHasClass(pvc: Obj): boolean {
  if (BETA_STORAGE_CLASS_ANNOTATION in annotationsOf(pvc)) return true;
  const cls = pvc?.spec?.storageClassName;
  return cls !== undefined && cls !== null;
}

/** GetPersistentVolumeClaimClass: the beta annotation wins, else spec.storageClassName, else "". */
export function claimClassName(pvc: Obj | undefined): string {
  const beta = annotationsOf(pvc)[BETA_STORAGE_CLASS_ANNOTATION];
  if (typeof beta === 'string') return beta;
  const cls = pvc?.spec?.storageClassName;
  return typeof cls === 'string' ? cls : '';
}

export const isClaim = (a: { type: { group: string; kind: string } }) => a.type.group === '' && a.type.kind === 'PersistentVolumeClaim';

export const defaultStorageClassPlugin: AdmissionPlugin = {
  name: 'DefaultStorageClass',
  handles: (a) => a.operation === 'CREATE' && a.subresource === '' && isClaim(a),
  admit(a, inputs) {
    const pvc = a.object as Obj;
    if (claimHasClass(pvc)) return;
    const classes = inputs.storageClasses;
    if (!classes) throw missingInput('DefaultStorageClass', 'storage classes');
    const def = defaultStorageClass(classes);
    if (!def) return;
    (pvc.spec ??= {}).storageClassName = def.metadata.name;
  },
};
