// Core: what an admission plugin sees and how it refuses (kube's admission.Attributes, admission.Interface and
// admission.NewForbidden, apiserver/pkg/admission): shared by the chain (core/admission/chain.ts) and its plugins.

import type { ResourceType } from '../registry';
import type { KubeObject } from '../object-meta';
import type { UserInfo } from '../rbac/authorize';
import { forbidden, internalError, StatusError, type Status } from '../status';

export type Operation = 'CREATE' | 'UPDATE';

/** What kube's admission.Attributes carries, as far as the built-in plugins read it. */
export interface AdmissionAttributes {
  operation: Operation;
  type: ResourceType;
  namespace: string;
  subresource: string;
  object: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /** The name errors show when it is not the object's yet: a create's generateName until validation. */
  displayName?: string;
}

/**
 * The objects the front door read for this request (plain data: it crosses the Worker→store RPC). A field is
 * present when the plugins that read it apply to the request (core/admission/inputs.ts says which).
 */
export interface AdmissionInputs {
  user?: UserInfo;
  /** The request's namespace (PodSecurity reads its labels). */
  namespace?: KubeObject;
  /** The pod's ServiceAccount by name; null: read and not found. */
  serviceAccounts?: Record<string, KubeObject | null>;
  /** Every PriorityClass (pod creates; PriorityClass writes: the globalDefault check). */
  priorityClasses?: KubeObject[];
  /** The namespace's LimitRanges (pod creates). */
  limitRanges?: KubeObject[];
  /** The namespace's ResourceQuotas (creates of namespaced types). */
  resourceQuotas?: KubeObject[];
  /** The front door has charged the quotas for this object already (worker/quota-charge.ts). */
  quotaCharged?: boolean;
  /** Every StorageClass (PVC creates: DefaultStorageClass; PVC updates: PersistentVolumeClaimResize). */
  storageClasses?: KubeObject[];
  /** The requesting kubelet's own Node (a node's pod creates: NodeRestriction's owner UID check); null: not found. */
  node?: KubeObject | null;
  /**
   * PodSecurity's exemption of this request's user or namespace (the `POD_SECURITY_EXEMPT_*` settings); for a write
   * of a Namespace by name, 'namespace' when that namespace is exempt.
   */
  podSecurityExempt?: 'user' | 'namespace';
  /** PodSecurity's exempt runtimeClassNames (`POD_SECURITY_EXEMPT_RUNTIME_CLASSES`), for pods and pod templates. */
  podSecurityExemptRuntimeClasses?: string[];
}

/** Per-request facilities: randomness is injected (kube's names.SimpleNameGenerator). */
export interface AdmissionEnv {
  randomSuffix: () => string;
  warnings?: string[];
  /** Audit annotations for the request's audit event (kube's admission.Attributes AddAnnotation). */
  auditAnnotations?: Record<string, string>;
  /** What a plugin leaves to the front door after the write (./attributes.ts AdmissionFollowUp). */
  followUp?: AdmissionFollowUp;
}

/**
 * Work a plugin asks of the front door once the store has answered, where kube's plugin reads other types inside
 * admission: it crosses the store→Worker RPC as plain data on the reply (contract/rpc.ts StoreReply).
 */
export interface AdmissionFollowUp {
  /** PodSecurity: a namespace update tightened `enforce`; its existing pods are evaluated and warned about. */
  podSecurityPods?: { namespace: string; level: 'baseline' | 'restricted'; version: string };
}

export interface AdmissionPlugin {
  /** As kube names it (admission.RegisterPlugin); refusals carry it in messages where kube's do. */
  name: string;
  handles(a: AdmissionAttributes): boolean;
  admit?(a: AdmissionAttributes, inputs: AdmissionInputs, env: AdmissionEnv): void;
  validate?(a: AdmissionAttributes, inputs: AdmissionInputs, env: AdmissionEnv): void;
}

/**
 * The name kube's admission errors show (apiserver/pkg/admission/errors.go extractResourceName): the object's
 * name, else its generateName (names are generated after mutating admission), else "Unknown".
 */
export function admissionName(a: AdmissionAttributes): string {
  if (a.displayName) return a.displayName;
  const m = a.object.metadata ?? {};
  return m.name || m.generateName || 'Unknown';
}

/** admission.NewForbidden: 403 `<resource> "<name>" is forbidden: <message>`. */
export function admissionForbidden(a: AdmissionAttributes, message: string): StatusError {
  return new StatusError(forbidden({ group: a.type.group, resource: a.type.resource }, admissionName(a), message));
}

/** An input the front door should have read and did not: refuse rather than admit unchecked. */
export function missingInput(plugin: string, what: string): StatusError {
  const status: Status = internalError(`${plugin} admission: ${what} not available`);
  return new StatusError(status);
}

export const isPod = (a: AdmissionAttributes) => a.type.group === '' && a.type.kind === 'Pod';
