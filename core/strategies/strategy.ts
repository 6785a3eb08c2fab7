// Core: what one resource type does differently when it is written, as kube-apiserver's per-type strategies
// (RESTCreateStrategy, RESTUpdateStrategy, the status strategy, RESTGracefulDeleteStrategy, the registry store's
// BeforeDelete and ShouldDeleteDuringUpdate hooks; pkg/registry/<group>/<type>/strategy.go). The generic write
// path (core/writes/) calls these hooks at fixed points and has no branch on a kind; strategyFor
// (./index.ts) gives every type its strategy.

import type { KubeObject } from '../object-meta';
import type { ResourceType } from '../registry';
import type { StatusCause } from '../status';
import type { DecodeOptions, FieldValidation } from '../validation/known-fields';
import type { ServiceAllocations } from '../admission/service-ranges';
import type { GracefulOutcome } from '../pods/graceful-delete';
import type { UserInfo } from '../rbac/authorize';

/** What a hook may know of the write: the type, time, the request's options, and lazily the store's other objects. */
export interface StrategyEnv {
  type: ResourceType;
  now: number;
  fieldValidation?: FieldValidation;
  warnings?: string[]; // Warn-level findings for the Warning header
  /** The apiVersion the request speaks when it is not the store's (core/views): events.k8s.io/v1, a CRD's other version. */
  view?: string;
  garbageCollection?: boolean; // false: the garbage collector and namespace controller are not running
  defaultTolerationSeconds?: number;
  /** Every stored object of the type (a CRD's names are checked against the others). */
  objects(): Iterable<KubeObject>;
  /** Services: the clusterIPs and nodePorts stored Services hold. */
  serviceAllocations(): ServiceAllocations;
  /** A source of randomness for this write (allocation). */
  random(): () => number;
  /** Who writes (kube's request context user), when the front door said: a CertificateSigningRequest records it. */
  user?: UserInfo;
}

/** Where a decoded object came from: a body's text, or a patch (whose value error messages quote). */
export type DecodeSource = Pick<DecodeOptions, 'text' | 'patchValue' | 'converter'>;

/** A subresource's write: the object to store, from the stored one (undefined when missing) and the request body. */
export type SubresourceWrite = (current: KubeObject | undefined, name: string, body: string, env: StrategyEnv) => KubeObject;

/**
 * The hooks, in the order the write path calls them. Create: decode → validate (with the metadata rules) →
 * server-set metadata → default → prepareForCreate → managedFields → allocate → beforeStore. Update: decode →
 * default (not /status) → prepareForUpdate → validateUpdate (not /status) → managedFields → allocate (main
 * resource) → validate or validateStatusUpdate (with the metadata rules) → beforeStore → shouldDeleteDuringUpdate.
 * Delete: beforeDelete → checkGracefulDelete → delete. A hook that refuses throws a StatusError.
 */
export interface WriteStrategy {
  /** A written object as the type's decoder makes it (built-ins: Go-struct decoding; custom objects: pruning and defaulting). */
  decode(obj: KubeObject, env: StrategyEnv, source: DecodeSource): KubeObject;
  /** Patch content types accepted; undefined: every kind. */
  readonly patchTypes?: readonly string[];
  /** The type's own validation of an object being created (`old` undefined) or updated, after the metadata rules. */
  validate(obj: KubeObject, old: KubeObject | undefined, env: StrategyEnv): StatusCause[];
  /** A /status update's validation (the status strategy's ValidateUpdate); none when absent. */
  validateStatusUpdate?(obj: KubeObject, old: KubeObject, env: StrategyEnv): StatusCause[];
  /**
   * What an update may not change (ValidateUpdate's immutable fields), checked before managedFields are recorded;
   * `subresource` ('' for the main resource) names a subresource with an update strategy of its own.
   */
  validateUpdate(obj: KubeObject, old: KubeObject, env: StrategyEnv, subresource?: string): StatusCause[];
  /** Defaults, as decoding fills them: on create (`old` undefined) and on an update of the main resource. */
  default(obj: KubeObject, old: KubeObject | undefined, env: StrategyEnv): void;
  /** Create-time additions after defaulting, before managedFields (admission: a pod's default tolerations). */
  prepareForCreate?(obj: KubeObject, env: StrategyEnv): void;
  /** The object an update of `subresource` ('' for the main resource) stores, from the request and the stored object. */
  prepareForUpdate(next: KubeObject, current: KubeObject, subresource: string, env: StrategyEnv): KubeObject;
  /** Values taken from what other objects hold (a Service's clusterIP and nodePorts); on update, main resource only. */
  allocate?(obj: KubeObject, old: KubeObject | undefined, env: StrategyEnv): void;
  /** The last changes and checks before storage (CRDs: names and status; custom objects: schema and CEL rules). */
  beforeStore?(obj: KubeObject, old: KubeObject | undefined, subresource: string, env: StrategyEnv): void;
  /** An update that leaves an object being deleted with nothing holding it deletes it (ShouldDeleteDuringUpdate). */
  shouldDeleteDuringUpdate(obj: KubeObject): boolean;
  /** Subresources the type writes itself (pods/binding), answered 201 with a Success Status as REST storage returning one is. */
  readonly subresources?: ReadonlyMap<string, SubresourceWrite>;
  /** The object a DELETE acts on (a CRD with its cleanup finalizer); undefined: the stored one. */
  beforeDelete?(current: KubeObject, env: StrategyEnv): KubeObject | undefined;
  /** Graceful deletion (CheckGracefulDelete): `requested` is the DELETE's grace period, undefined when not given. */
  checkGracefulDelete?(obj: KubeObject, requested: number | undefined, env: StrategyEnv): GracefulOutcome;
  /**
   * The type's own DELETE, ahead of the generic one (mark an object with finalizers, else remove it): the object to
   * store instead (the current object itself: nothing changes), or undefined for the generic DELETE. Namespaces
   * their controller finalizes.
   */
  delete?(current: KubeObject, env: StrategyEnv): KubeObject | undefined;
}
