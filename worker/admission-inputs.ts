// Front door: reads what the admission chain (core/admission/chain.ts) consults for one write — the pod's
// ServiceAccount, the PriorityClasses — from the canonical stores, as kube's plugins read their informers'
// listers; the store then runs the chain on the object it is about to write. Reads are bounded: one get per
// account, one list page per type (a larger list refuses the write: admission fails closed).

import { groupResource, lookupGroupResource, type ResourceType } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import type { AdmissionInputs } from '../core/admission/chain';
import { DEFAULT_SERVICE_ACCOUNT } from '../core/admission/plugins/service-account';
import { internalError, StatusError, type Result } from '../core/status';
import type { StoreReply } from '../contract/rpc';
import type { Settings } from '../core/settings';
import type { UserInfo } from '../core/rbac/authorize';
import { parseApplyBody } from '../core/apply/apply-body';
import { readCapped } from './body';
import type { Bindings } from './env';
import { storeFor } from './stores';
import { admissionCache } from './admission-cache';
import { nodeIdentity } from '../core/admission/plugins/node-restriction';

const SERVICE_ACCOUNTS = lookupGroupResource('core/serviceaccounts')!;
const PRIORITY_CLASSES = lookupGroupResource('scheduling.k8s.io/priorityclasses')!;
const LIMIT_RANGES = lookupGroupResource('core/limitranges')!;
const RESOURCE_QUOTAS = lookupGroupResource('core/resourcequotas')!;
const NAMESPACES = lookupGroupResource('core/namespaces')!;
const STORAGE_CLASSES = lookupGroupResource('storage.k8s.io/storageclasses')!;
const NODES = lookupGroupResource('core/nodes')!;
const PODS = lookupGroupResource('core/pods')!;
// The most objects, and bytes, of one type admission reads per request: every pod create reads the namespace's
// LimitRanges and ResourceQuotas, so a tenant's many or huge objects must not multiply into every create's cost.
// A namespace over either bound has its creates refused (fail closed) rather than admitted unchecked.
export const ADMISSION_LIST_LIMIT = 100;
export const ADMISSION_LIST_BYTES = 4 * 1024 * 1024;
// ServiceAccount admission's getServiceAccount: `default` is looked up ten times, 100–200 ms apart, since the
// ServiceAccount controller creates it just after the namespace.
const DEFAULT_ACCOUNT_ATTEMPTS = 10;

export interface InputRequest {
  type: ResourceType;
  /** create, or an apply that may create; update covers PUT and the other patches. */
  operation: 'create' | 'update';
  namespace: string;
  /** The request body as sent (JSON or, for apply, YAML); read for the names a plugin will look up. */
  body: string;
  /** The body's JSON, parsed once per request (worker/audit.ts decodedBodyObject); for a create or update. */
  object?: () => unknown;
  user: UserInfo;
  subresource?: string;
  /** The object's name when the request names it (not a POST create). */
  name?: string;
}

export async function admissionInputs(env: Bindings, settings: Settings, req: InputRequest): Promise<AdmissionInputs> {
  const inputs: AdmissionInputs = { user: req.user };
  const { type } = req;
  const reads: Promise<void>[] = [];
  if (type.group === '' && type.kind === 'Pod' && req.operation === 'create') {
    const name = serviceAccountNameIn(req.body, req.object) || DEFAULT_SERVICE_ACCOUNT;
    reads.push(serviceAccount(env, settings, req.namespace, name).then((a) => void (inputs.serviceAccounts = { [name]: a })));
    reads.push(listAll(env, PRIORITY_CLASSES, '', true).then((l) => void (inputs.priorityClasses = l)));
    reads.push(listAll(env, LIMIT_RANGES, req.namespace, true).then((l) => void (inputs.limitRanges = l)));
  }
  // ServiceAccount admission on pods/ephemeralcontainers: the pod's own account (its name is immutable: the stored pod's).
  if (type.group === '' && type.kind === 'Pod' && req.operation === 'update' && req.subresource === 'ephemeralcontainers' && req.name) {
    reads.push(accountOfPod(env, settings, req.namespace, req.name).then((a) => void (a && (inputs.serviceAccounts = a))));
  }
  if (type.namespaced && req.namespace && !type.custom && podSecurityApplies(type) && (!req.subresource || req.subresource === 'ephemeralcontainers')) {
    // PodSecurity's exemptions (namespace before user, as kube checks them) spare the namespace read.
    const exempt = settings.podSecurityExemptNamespaces.includes(req.namespace) ? 'namespace' : settings.podSecurityExemptUsernames.includes(req.user.username) ? 'user' : undefined;
    if (exempt) inputs.podSecurityExempt = exempt;
    else reads.push(namespaceObject(env, req.namespace).then((n) => void (inputs.namespace = n)));
    if (settings.podSecurityExemptRuntimeClasses.length) inputs.podSecurityExemptRuntimeClasses = [...settings.podSecurityExemptRuntimeClasses];
  }
  // PodSecurity on a Namespace written by name: kube's attributes carry its name as the request's namespace, so an
  // exempt namespace's label updates are not checked against its pods (a create by POST has no namespace: never exempt).
  if (type.group === '' && type.kind === 'Namespace' && req.name && settings.podSecurityExemptNamespaces.includes(req.name)) {
    inputs.podSecurityExempt = 'namespace';
  }
  if (type.namespaced && type.stored && (req.operation === 'create' || (!req.subresource && chargedOnUpdate(type)))) {
    reads.push(listAll(env, RESOURCE_QUOTAS, req.namespace, 'when empty').then((l) => void (inputs.resourceQuotas = l)));
  }
  // DefaultStorageClass (claim creates) and PersistentVolumeClaimResize (claim updates) read the classes.
  if (type.group === '' && type.kind === 'PersistentVolumeClaim' && !req.subresource) {
    reads.push(listAll(env, STORAGE_CLASSES, '', true).then((l) => void (inputs.storageClasses = l)));
  }
  // NodeRestriction checks a kubelet's mirror pod against its own Node's UID.
  const node = nodeIdentity(req.user);
  if (node && type.group === '' && type.kind === 'Pod' && req.operation === 'create') {
    reads.push(nodeObject(env, node).then((n) => void (inputs.node = n)));
  }
  if (type.group === 'scheduling.k8s.io' && type.kind === 'PriorityClass') {
    reads.push(listAll(env, PRIORITY_CLASSES, '').then((l) => void (inputs.priorityClasses = l)));
  }
  await Promise.all(reads);
  return inputs;
}

// PodSecurity's kinds: pods and the workloads whose template it warns about (core/admission/plugins/pod-security.ts).
const POD_SECURITY_KINDS = new Set(['/Pod', 'apps/Deployment', 'apps/ReplicaSet', 'apps/StatefulSet', 'apps/DaemonSet', 'batch/Job', 'batch/CronJob', '/ReplicationController', '/PodTemplate']);
const podSecurityApplies = (type: ResourceType) => POD_SECURITY_KINDS.has(`${type.group}/${type.kind}`);

/**
 * The namespace as a store read it lately (the isolate's admission cache), or, `fresh`, as it is now; undefined
 * when it does not exist (never cached: a namespace created a moment ago is found at once).
 */
export async function namespaceObject(env: Bindings, name: string, fresh = false): Promise<KubeObject | undefined> {
  const key = `ns|${name}`;
  if (fresh) admissionCache.delete(key);
  const cached = admissionCache.get<KubeObject>(key);
  if (cached) return cached;
  const read = async (): Promise<Result<StoreReply>> => storeFor(env, NAMESPACES).get(groupResource(NAMESPACES), { namespace: '', name, subresource: '' });
  const got = await (fresh ? read() : admissionCache.shared(key, read));
  if (got.ok) {
    const ns = JSON.parse(got.value.body) as KubeObject;
    admissionCache.set(key, ns, got.value.body);
    return ns;
  }
  if (got.status.code === 404) return undefined; // NamespaceLifecycle words the refusal; PodSecurity fails closed without it
  throw new StatusError(got.status);
}

/** The quota evaluators that charge updates too (kube 1.32: services and persistentvolumeclaims; pods need in-place resize). */
const chargedOnUpdate = (type: ResourceType) => type.group === '' && (type.kind === 'Service' || type.kind === 'PersistentVolumeClaim');

/** The stored pod's ServiceAccount by name (none when the pod is missing or names none: the store answers then). */
async function accountOfPod(env: Bindings, settings: Settings, namespace: string, name: string): Promise<Record<string, KubeObject | null> | undefined> {
  const got = await storeFor(env, PODS).get(groupResource(PODS), { namespace, name, subresource: '' });
  if (!got.ok) {
    if (got.status.code === 404) return undefined;
    throw new StatusError(got.status);
  }
  const account = accountNameOf(JSON.parse(got.value.body));
  return account ? { [account]: await serviceAccount(env, settings, namespace, account) } : undefined;
}

async function nodeObject(env: Bindings, name: string): Promise<KubeObject | null> {
  const got = await storeFor(env, NODES).get(groupResource(NODES), { namespace: '', name, subresource: '' });
  if (got.ok) return JSON.parse(got.value.body) as KubeObject;
  if (got.status.code === 404) return null;
  throw new StatusError(got.status);
}

async function serviceAccount(env: Bindings, settings: Settings, namespace: string, name: string): Promise<KubeObject | null> {
  const attempts = name === DEFAULT_SERVICE_ACCOUNT && settings.controllers ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
  for (let i = 0; i < attempts; i++) {
    if (i) await new Promise((r) => setTimeout(r, 100 + Math.floor(Math.random() * 100)));
    const cached = admissionCache.get<KubeObject>(`sa|${namespace}|${name}`);
    if (cached) return cached;
    const got = await admissionCache.shared(`sa|${namespace}|${name}`, async (): Promise<Result<StoreReply>> => storeFor(env, SERVICE_ACCOUNTS).get(groupResource(SERVICE_ACCOUNTS), { namespace, name, subresource: '' }));
    if (got.ok) {
      // Only an account that exists is kept: one created a moment ago is found at once, as kube's live GET finds it.
      const account = JSON.parse(got.value.body) as KubeObject;
      admissionCache.set(`sa|${namespace}|${name}`, account, got.value.body);
      return account;
    }
    if (got.status.code !== 404) throw new StatusError(got.status);
  }
  // Without the control loops nothing creates `default` (controllers/serviceaccount.ts does): the plugin then
  // sees an account with no settings of its own, so pods are admitted as in a cluster whose controller made it.
  // Kept like an account read (a second at most, forgotten on a ServiceAccount write through this isolate): without
  // it every pod create paid a store round trip for the same 404.
  if (name === DEFAULT_SERVICE_ACCOUNT && !settings.controllers) {
    const account: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } };
    admissionCache.set(`sa|${namespace}|${name}`, account);
    return account;
  }
  return null;
}

/**
 * Every object of a type (in a namespace), one page; more than ADMISSION_LIST_LIMIT refuses. `cache`: the list may
 * come from (and goes to) the isolate's admission cache — always, or only when it is empty.
 */
export async function listAll(env: Bindings, type: ResourceType, namespace: string, cache: boolean | 'when empty' = false): Promise<KubeObject[]> {
  const key = `list|${groupResource(type)}|${namespace}`;
  if (cache) {
    const hit = admissionCache.get<KubeObject[]>(key);
    if (hit) return hit;
  }
  const read = async () => {
    const res = await storeFor(env, type).list(groupResource(type), { namespace, query: `?limit=${ADMISSION_LIST_LIMIT}`, format: { as: 'List' } });
    const text = await readCapped(res, ADMISSION_LIST_BYTES);
    if (text === undefined) throw new StatusError(internalError(`admission: ${type.resource} over ${ADMISSION_LIST_BYTES} bytes`));
    if (res.status !== 200) throw new StatusError(internalError(`admission could not list ${type.resource}: ${res.status}`));
    return text;
  };
  // A list that may be cached may as well be shared with the requests reading it at the same moment.
  const text = await (cache ? admissionCache.shared(key, read) : read());
  const list = JSON.parse(text) as { items?: KubeObject[]; metadata?: { continue?: string } };
  if (list.metadata?.continue) throw new StatusError(internalError(`admission: more than ${ADMISSION_LIST_LIMIT} ${type.resource}`));
  const items = list.items ?? [];
  if (cache === true || (cache === 'when empty' && items.length === 0)) admissionCache.set(key, items);
  return items;
}


/** spec.serviceAccountName of a JSON or YAML (apply) pod body; '' when it names none or cannot be read (then `default`). */
export function serviceAccountNameIn(body: string, object?: () => unknown): string {
  try {
    if (object) return accountNameOf(object());
    // A JSON body (what nearly every client sends) by JSON.parse alone: parseApplyBody also scans every string for
    // duplicate keys, which a name lookup does not need (bench/profile.ts writes-64: 1.4% of a create's CPU).
    return accountNameOf(jsonObject(body) ?? parseApplyBody(body, 'Ignore', undefined));
  } catch {
    return ''; // the store words the decoding error
  }
}

function accountNameOf(obj: unknown): string {
  const spec = (obj as { spec?: { serviceAccountName?: unknown; serviceAccount?: unknown } } | undefined)?.spec;
  const v = spec?.serviceAccountName || spec?.serviceAccount;
  return typeof v === 'string' ? v : '';
}

function jsonObject(body: string): unknown {
  if (body.trimStart()[0] !== '{') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
