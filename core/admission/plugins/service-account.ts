// Core: the ServiceAccount admission plugin as kube 1.32's (plugin/pkg/admission/serviceaccount/admission.go): a
// pod created without serviceAccountName gets `default`; the account must exist; unless the pod or the account
// opts out, every init and regular container mounts a `kube-api-access-<5>` projected volume (bound token,
// kube-root-ca.crt, the namespace) at /var/run/secrets/kubernetes.io/serviceaccount; the account's
// imagePullSecrets fill a pod that has none; accounts annotated kubernetes.io/enforce-mountable-secrets limit the
// secrets the pod may reference; mirror pods may reference neither accounts nor secrets. Ephemeral containers added
// through pods/ephemeralcontainers are held to the same account's mountable secrets (limitEphemeralContainerSecretReferences).

import type { KubeObject } from '../../object-meta';
import { admissionForbidden, isPod, missingInput, type AdmissionAttributes, type AdmissionInputs, type AdmissionPlugin } from '../attributes';
import { StatusError, unknownError } from '../../status';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const ENFORCE_MOUNTABLE_SECRETS = 'kubernetes.io/enforce-mountable-secrets';
// pkg/serviceaccount WarnOnlyBoundTokenExpirationSeconds: one hour and seven seconds.
const TOKEN_EXPIRATION_SECONDS = 3607;
const PROJECTED_DEFAULT_MODE = 420; // corev1.ProjectedVolumeSourceDefaultMode (0644)

type Obj = Record<string, any>;

export const serviceAccountPlugin: AdmissionPlugin = {
  name: 'ServiceAccount',
  // shouldIgnore: pods and pods/ephemeralcontainers only.
  handles: (a) => isPod(a) && (a.subresource === '' || a.subresource === 'ephemeralcontainers'),
  admit(a, inputs, env) {
    if (a.operation !== 'CREATE' || a.subresource) return;
    const pod = a.object as Obj;
    if (isMirrorPod(pod)) return validateCreate(a, inputs);
    const spec = (pod.spec ??= {}) as Obj;
    // v1 conversion reads the deprecated serviceAccount when serviceAccountName is empty, and writes it back.
    if (!spec.serviceAccountName && typeof spec.serviceAccount === 'string') spec.serviceAccountName = spec.serviceAccount;
    if (!spec.serviceAccountName) spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
    spec.serviceAccount = spec.serviceAccountName;
    const account = lookUp(a, inputs, spec.serviceAccountName);
    if (shouldAutomount(account, spec)) mountToken(spec, env.randomSuffix);
    if (!(Array.isArray(spec.imagePullSecrets) && spec.imagePullSecrets.length)) {
      const pulls = Array.isArray(account.imagePullSecrets) ? account.imagePullSecrets : [];
      if (pulls.length) spec.imagePullSecrets = pulls.map((p: Obj) => ({ name: p?.name ?? '' }));
    }
    validateCreate(a, inputs);
  },
  validate(a, inputs) {
    if (a.operation === 'UPDATE' && a.subresource === 'ephemeralcontainers') return limitEphemeralContainerSecretReferences(a, inputs);
    if (a.operation === 'CREATE' && !a.subresource) validateCreate(a, inputs);
  },
};

/**
 * The pod's account must be named and exist, as on create; an account enforcing mountable secrets limits what the
 * ephemeral containers' env and envFrom reference. kube returns that refusal as a plain error (not
 * admission.NewForbidden), which the apiserver answers as 500 without a reason: so does edgeplane.
 */
function limitEphemeralContainerSecretReferences(a: AdmissionAttributes, inputs: AdmissionInputs): void {
  const pod = a.object as Obj;
  const spec = (pod.spec ?? {}) as Obj;
  if (!spec.serviceAccountName) {
    throw admissionForbidden(a, `no service account specified for pod ${a.namespace}/${pod.metadata?.name ?? ''}`);
  }
  const account = lookUp(a, inputs, spec.serviceAccountName);
  if (!enforcesMountableSecrets(account)) return;
  const mountable = new Set(list(account.secrets).map((s: Obj) => s?.name));
  const who = account.metadata?.name ?? '';
  for (const c of list(spec.ephemeralContainers)) {
    for (const e of list(c?.env)) {
      const ref = e?.valueFrom?.secretKeyRef;
      if (ref && !mountable.has(ref.name)) {
        throw new StatusError(unknownError(500, `ephemeral container ${c.name ?? ''} with envVar ${e.name ?? ''} referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${who} does not reference that secret`));
      }
    }
    for (const e of list(c?.envFrom)) {
      if (e?.secretRef && !mountable.has(e.secretRef.name)) {
        throw new StatusError(unknownError(500, `ephemeral container ${c.name ?? ''} with envFrom referencing secret.secretName="${e.secretRef.name ?? ''}" is not allowed because service account ${who} does not reference that secret`));
      }
    }
  }
}

function validateCreate(a: AdmissionAttributes, inputs: AdmissionInputs): void {
  const pod = a.object as Obj;
  const spec = (pod.spec ?? {}) as Obj;
  if (isMirrorPod(pod)) {
    if (spec.serviceAccountName) throw admissionForbidden(a, 'a mirror pod may not reference service accounts');
    if (secretNames(spec).length) throw admissionForbidden(a, 'a mirror pod may not reference secrets');
    for (const v of list(spec.volumes)) {
      if (list(v?.projected?.sources).some((s: Obj) => s?.serviceAccountToken)) {
        throw admissionForbidden(a, 'a mirror pod may not use ServiceAccountToken volume projections');
      }
    }
    return;
  }
  if (!spec.serviceAccountName) {
    throw admissionForbidden(a, `no service account specified for pod ${a.namespace}/${pod.metadata?.name ?? ''}`);
  }
  const account = lookUp(a, inputs, spec.serviceAccountName);
  if (enforcesMountableSecrets(account)) {
    const refused = secretReferenceRefusal(account, spec);
    if (refused) throw admissionForbidden(a, refused);
  }
}

function lookUp(a: AdmissionAttributes, inputs: AdmissionInputs, name: string): Obj {
  const found = inputs.serviceAccounts?.[name];
  if (found === undefined) throw missingInput('ServiceAccount', `service account ${a.namespace}/${name}`);
  if (found === null) {
    // getServiceAccount's errors.NewNotFound(api.Resource("serviceaccount"), name), wrapped by Admit.
    throw admissionForbidden(a, `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`);
  }
  return found as Obj;
}

function isMirrorPod(pod: Obj): boolean {
  const annotations = pod.metadata?.annotations;
  return !!annotations && typeof annotations === 'object' && Object.prototype.hasOwnProperty.call(annotations, MIRROR_POD_ANNOTATION);
}

/** The pod's preference wins, then the account's; true by default. */
function shouldAutomount(account: Obj, spec: Obj): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

/** Go's strconv.ParseBool, true side (the annotation's value; anything unparsable is false). */
function enforcesMountableSecrets(account: Obj): boolean {
  const v = (account.metadata as KubeObject['metadata'] | undefined)?.annotations?.[ENFORCE_MOUNTABLE_SECRETS];
  return v === '1' || v === 't' || v === 'T' || v === 'true' || v === 'TRUE' || v === 'True';
}

/** mountServiceAccountToken: an existing kube-api-access-* volume is reused; mounts already at the path are kept. */
function mountToken(spec: Obj, randomSuffix: () => string): void {
  const volumes = list(spec.volumes);
  const existing = volumes.find((v: Obj) => typeof v?.name === 'string' && v.name.startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName: string = existing ? existing.name : TOKEN_VOLUME_PREFIX + randomSuffix();
  let needsVolume = false;
  for (const field of ['initContainers', 'containers']) {
    for (const c of list(spec[field])) {
      if (!c || typeof c !== 'object') continue;
      const mounts = list(c.volumeMounts);
      if (mounts.some((m: Obj) => m?.mountPath === TOKEN_MOUNT_PATH)) continue;
      c.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
      needsVolume = true;
    }
  }
  if (!existing && needsVolume) spec.volumes = [...volumes, { name: volumeName, projected: tokenVolumeSource() }];
}

/** serviceaccount.TokenVolumeSource, with the defaults the stored pod shows. */
export function tokenVolumeSource(): Obj {
  return {
    sources: [
      { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: PROJECTED_DEFAULT_MODE,
  };
}

/** limitSecretReferences: the first reference the account does not list, worded as kube's. */
function secretReferenceRefusal(account: Obj, spec: Obj): string | undefined {
  const mountable = new Set(list(account.secrets).map((s: Obj) => s?.name));
  const who = account.metadata?.name ?? '';
  for (const v of list(spec.volumes)) {
    const name = v?.secret?.secretName;
    if (v?.secret && !mountable.has(name)) {
      return `volume with secret.secretName="${name ?? ''}" is not allowed because service account ${who} does not reference that secret`;
    }
  }
  for (const [field, label] of [['initContainers', 'init container'], ['containers', 'container']] as const) {
    for (const c of list(spec[field])) {
      for (const e of list(c?.env)) {
        const ref = e?.valueFrom?.secretKeyRef;
        if (ref && !mountable.has(ref.name)) {
          return `${label} ${c.name ?? ''} with envVar ${e.name ?? ''} referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${who} does not reference that secret`;
        }
      }
      for (const e of list(c?.envFrom)) {
        if (e?.secretRef && !mountable.has(e.secretRef.name)) {
          return `${label} ${c.name ?? ''} with envFrom referencing secret.secretName="${e.secretRef.name ?? ''}" is not allowed because service account ${who} does not reference that secret`;
        }
      }
    }
  }
  const pulls = new Set(list(account.imagePullSecrets).map((s: Obj) => s?.name));
  const refs = list(spec.imagePullSecrets);
  for (let i = 0; i < refs.length; i++) {
    if (!pulls.has(refs[i]?.name)) {
      return `imagePullSecrets[${i}].name="${refs[i]?.name ?? ''}" is not allowed because service account ${who} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}

/** podutil.VisitPodSecretNames over all containers: every secret the pod names (mirror pods may name none). */
function secretNames(spec: Obj): string[] {
  const names: string[] = [];
  for (const p of list(spec.imagePullSecrets)) if (p?.name) names.push(p.name);
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of list(spec[field])) {
      for (const e of list(c?.envFrom)) if (e?.secretRef?.name) names.push(e.secretRef.name);
      for (const e of list(c?.env)) if (e?.valueFrom?.secretKeyRef?.name) names.push(e.valueFrom.secretKeyRef.name);
    }
  }
  for (const v of list(spec.volumes)) {
    if (!v || typeof v !== 'object') continue;
    if (v.secret?.secretName) names.push(v.secret.secretName);
    if (v.azureFile?.secretName) names.push(v.azureFile.secretName);
    for (const key of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos']) {
      if (v[key]?.secretRef?.name) names.push(v[key].secretRef.name);
    }
    if (v.csi?.nodePublishSecretRef?.name) names.push(v.csi.nodePublishSecretRef.name);
    for (const s of list(v.projected?.sources)) if (s?.secret?.name) names.push(s.secret.name);
  }
  return names;
}

function list(v: unknown): any[] {
  return Array.isArray(v) ? v : [];
}
