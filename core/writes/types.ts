// Core: the vocabulary of the write path (core/writes/): the store as a write sees it, the environment the store
// gives each write, and the requests and responses of every verb.

import type { ResourceType } from '../registry';
import type { KubeObject } from '../object-meta';
import type { Status } from '../status';
import type { ParsedSelectors } from '../list/options';
import type { WriteGuard } from '../rbac/escalation';
import type { FieldValidation } from '../validation/known-fields';
import type { ServiceAllocations } from '../admission/service-ranges';
import type { StrategyEnv, WriteStrategy } from '../strategies/strategy';
import type { ApiView } from '../views/view';
import type { AdmissionFollowUp, AdmissionInputs } from '../admission/attributes';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** The store as the write logic sees it; `commit` assigns the next revision and returns the stored object. */
export interface WriteStore {
  get(key: string): KubeObject | undefined;
  objects(namespace: string): Iterable<KubeObject>;
  commit(type: EventType, key: string, object: KubeObject): KubeObject;
  /**
   * True when `commit` refuses (413) an object whose JSON is over MAX_OBJECT_BYTES as it serializes it for storage:
   * create and update then do not serialize the object once more only to measure it (./stored.ts checkSize).
   */
  checksSize?: boolean;
  /** Services: the clusterIPs and nodePorts the stored Services hold, kept by the store; else derived by a scan. */
  serviceAllocations?: ServiceAllocations;
}

export interface WriteEnv {
  type: ResourceType;
  now: number;
  newUid: () => string;
  randomSuffix: () => string;
  fieldValidation?: FieldValidation; // default Warn, as kube-apiserver's
  warnings?: string[]; // collects Warn-level findings for the Warning header
  auditAnnotations?: Record<string, string>; // admission's annotations for the request's audit event
  // Checks the object a create or update is about to store, before validation as kube's registry
  // transforms do (e.g. RBAC escalation prevention, core/rbac/escalation.ts); throws to refuse.
  guard?: WriteGuard;
  garbageCollection?: boolean; // default true; false: DELETE adds no orphan/foregroundDeletion finalizers
  defaultTolerationSeconds?: number; // DefaultTolerationSeconds admission (core/pods/default-tolerations.ts); default 300
  // The admission chain (core/admission/chain.ts) with what the front door read for it; absent for the
  // server's own writes (bootstrap), which kube-apiserver's post-start hooks also make without admission.
  admission?: { inputs: AdmissionInputs; dryRun: boolean; followUp?: AdmissionFollowUp };
}

/** One write as the verb modules see it: the store's environment and what executeWrite resolved from the request. */
export interface WriteContext extends WriteEnv {
  strategy: WriteStrategy;
  strategyEnv: StrategyEnv; // what the strategy's hooks see (./strategy-env.ts)
  manager: string; // the field manager of this write (fieldManager, else the User-Agent's prefix)
  view?: ApiView; // the API the request speaks, when the store's type is not it (core/views)
}

export type WriteRequest = (
  | { verb: 'create'; namespace: string; body: string }
  | { verb: 'update'; namespace: string; name: string; subresource: string; body: string }
  | { verb: 'patch'; namespace: string; name: string; subresource: string; patchType: string; body: string }
  | { verb: 'delete'; namespace: string; name: string; body: string; query: DeleteQuery }
  | { verb: 'deletecollection'; namespace: string; selectors: ParsedSelectors; body: string; query: DeleteQuery; page?: DeletePage }
) & WriteAttribution;

export type CreateRequest = Extract<WriteRequest, { verb: 'create' }>;
export type UpdateRequest = Extract<WriteRequest, { verb: 'update' }>;
export type PatchRequest = Extract<WriteRequest, { verb: 'patch' }>;
export type DeleteRequest = Extract<WriteRequest, { verb: 'delete' }>;
export type DeleteCollectionRequest = Extract<WriteRequest, { verb: 'deletecollection' }>;

/** One page of a deletecollection (core/list/delete-collection-page.ts): the keys the store picked, and its cursor. */
export interface DeletePage {
  keys: string[];
  resourceVersion: string; // the store's revision before this page
  continue?: string;
}

/** Who writes, for managedFields: the `fieldManager` parameter and User-Agent; `force` (apply only). */
export interface WriteAttribution {
  fieldManager?: string;
  userAgent?: string;
  force?: boolean;
  /** Why the object may not be created (RBAC, namespace lifecycle): an apply that would create it fails so. */
  createRefused?: Status;
  /**
   * The body's managedFields are final (the front door's dry run computed them before admission webhooks changed
   * the object, worker/admission-webhooks.ts): stored as sent, so a webhook's changes belong to no manager, as kube.
   */
  managedFieldsAsSent?: boolean;
  /**
   * The apiVersion the request speaks when the store's type is another (core/views): events.k8s.io/v1 over core/v1
   * Events, a CRD's served version over its storage version. The body is converted to the store's, the answer back.
   */
  view?: string;
}

export interface DeleteQuery {
  gracePeriodSeconds?: string;
  propagationPolicy?: string;
  orphanDependents?: boolean; // a *bool: undefined when the query does not set it
}

export interface WriteResponse {
  code: number;
  body: unknown;
  held?: number; // deletecollection: objects marked for deletion but kept by finalizers
}
