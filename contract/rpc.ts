// Contract: what the Worker and the Durable Objects say to each other — each object's RPC methods and the
// values they carry. The Worker calls these through stubs typed by the interfaces below; each Durable Object
// class implements its interface, so both sides are checked against this one file.

import type { ChangeRow, LogReply } from '../core/follow/change-log';
import type { ListFormat } from '../core/list/render';
import type { Result } from '../core/status';
import type { WriteRequest } from '../core/writes';
import type { FieldValidation } from '../core/validation/known-fields';
import type { EscalationGrant } from '../core/rbac/escalation';
import type { UserInfo } from '../core/rbac/authorize';
import type { PolicyRule, RequestAttributes } from '../core/rbac/rules';
import type { KubeObject } from '../core/object-meta';
import type { AdmissionFollowUp, AdmissionInputs } from '../core/admission/attributes';
import type { HubStats } from '../core/watch/hub';
import type { ManagerStats } from '../controllers/manager';
import type { ProxyRules } from '../controllers/kube-proxy';

// ---- the canonical store: one per resource type, named by its group/resource (names.ts) ----

export interface GetRequest {
  namespace: string;
  name: string;
  subresource: string;
  crdRevision?: number; // custom types: the CRD store revision the front door knows (crd-types.ts)
  view?: string; // the apiVersion to answer in, when not the store's (core/views/view.ts)
}

export interface ListRequest {
  namespace: string;
  query: string; // the URL's search string: parsed where the list is served, which owns list semantics
  format: ListFormat;
  crdRevision?: number;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  escalation?: EscalationGrant; // required for RBAC role and binding writes (core/rbac/escalation.ts)
  // For creates the front door admitted: the namespace's resourceVersion it saw (durable-objects/namespace-fence.ts).
  namespaceRevision?: number;
  crdRevision?: number;
  // The admission chain's inputs (core/admission/chain.ts), read by the front door; absent: no admission (bootstrap).
  admission?: AdmissionInputs;
  // deletecollection, one page at a time (core/list/delete-collection-page.ts): the page after this key.
  deletePage?: { after: string };
}

export interface StoreReply {
  code: number;
  body: string; // JSON, serialized once in the store
  warnings?: string[]; // for the Warning header (fieldValidation=Warn)
  auditAnnotations?: Record<string, string>; // admission's, for the request's audit event (PodSecurity)
  podSecurityPods?: AdmissionFollowUp['podSecurityPods']; // admission's follow-up: the namespace's pods to evaluate
  revision?: number; // the store's revision after this write
  held?: number; // deletecollection: objects kept by finalizers
  continue?: string; // a deletecollection page: where the next one starts
}

/** A watch cache's counters (the store's own, and each replica's). */
export interface CacheStats extends HubStats {
  socketStalls: number; // WebSocket watchers closed for sending past their budget unheard
  quotaRefused: number; // watches answered 429 by the watch quota
  revision: number;
  objects: number;
  windowEvents: number;
}

export interface StoreStats extends CacheStats {
  compacted: number;
  subscriptions: number;
  replicas: string[]; // every subscriber: replicas and authorizer shards (names.ts tells them apart)
  writes: number;
  messagesSent: number;
  watchersAtWake: number; // WebSocket watchers still connected when this object last started: non-zero after a wake from hibernation
}

/** Watches arrive by `fetch` (HTTP streaming or a WebSocket upgrade), with the target in headers.ts's headers. */
export interface StoreRpc extends Rpc.DurableObjectBranded {
  get(groupResource: string, req: GetRequest): Promise<Result<StoreReply>>;
  /** A Response, not a Result: a list can outgrow the 32 MiB limit of an RPC value, a body cannot. */
  list(groupResource: string, req: ListRequest): Promise<Response>;
  write(groupResource: string, req: WriteRequest, options?: WriteOptions): Promise<Result<StoreReply>>;
  terminateNamespace(groupResource: string, namespace: string, revision: number, crdRevision?: number): Promise<Result<StoreReply>>;
  fenceNamespace(groupResource: string, namespace: string, revision: number, crdRevision?: number): Promise<Result<true>>;
  endWatches(groupResource: string): Promise<void>;
  /** The newest revision: what a consistent read from a replica must have reached. */
  currentRevision(groupResource: string): Promise<number>;
  /** A follower joins (a replica or an authorizer shard, by name): from `after`, every change is pushed to it. */
  subscribe(groupResource: string, subscriber: string, after: number): Promise<LogReply>;
  unsubscribe(groupResource: string, subscriber: string): Promise<void>;
  /** The log after `after`, for followers that missed pushes and watchers catching up. */
  readLog(groupResource: string, after: number, limit?: number): Promise<LogReply>;
  stats(groupResource: string): Promise<StoreStats>;
  /** Test hooks (routed only when ENABLE_TEST_HOOKS is set): restart as a crash would; commit an object as it is. */
  abort(): Promise<void>;
  rawWrite(groupResource: string, object: KubeObject): Promise<Result<StoreReply>>;
}

// ---- followers: whatever a store pushes its changes to ----

export interface SubscriberRpc extends Rpc.DurableObjectBranded {
  /** A push: the changes of one write, the store's newest revision, and its compaction point. */
  receive(groupResource: string, name: string, changes: ChangeRow[], head: number, compacted: number): Promise<void>;
}

export interface ReplicaStats extends CacheStats {
  name: string;
  storeRevision: number;
  lag: number;
  eventsReceived: number;
  pushesReceived: number;
  resyncs: number;
  watchersAtWake: number; // as StoreStats'
}

/** A watch-cache replica near its clients: watches by `fetch`, and lists of the latest state. */
export interface ReplicaRpc extends SubscriberRpc {
  list(groupResource: string, name: string, req: ListRequest): Promise<Response>;
  stats(groupResource: string, name: string): Promise<ReplicaStats>;
  /** The store's type is going away (its CRD is deleted): end every watch after events up to `revision`. */
  endWatches(groupResource: string, name: string, revision: number): Promise<void>;
  /** Test hooks: hold pushes to make this replica lag; restart as a crash would. */
  setPaused(paused: boolean): Promise<void>;
  abort(): Promise<void>;
}

// ---- authorizer shards: RBAC followers that decide every request ----

export type Admission =
  | { allowed: true; reason: string; delayMs?: number } // reason: why (RBAC's "allowed by ..."), for the audit log; delayMs: wait that long first (the user's rate limit)
  | { allowed: false; throttled: true; retryAfterSeconds: number }
  | { allowed: false; throttled: false; reason: string; decisionReason: string; impersonation?: number };
// reason: the full kube 403 reason text; decisionReason: the authorizer's own reason (the audit log's); impersonation:
// the index of the impersonation request that was refused, when that is what was refused.

/** Who asks to act as the user `admit` decides for, and the `impersonate` checks that must all pass first. */
export interface Impersonation {
  requester: UserInfo;
  checks: RequestAttributes[];
}

export interface AuthorizerStats {
  malformedObjects: number;
  decisionCacheEntries: number;
  decisionCacheBytes: number;
  rateLimitBuckets: number;
}

export interface AuthorizerRpc extends SubscriberRpc {
  /** Impersonation, rate limit, then RBAC: one call per request. */
  admit(name: string, user: UserInfo, attrs: RequestAttributes, impersonation?: Impersonation): Promise<Admission>;
  /** The decision alone, for SelfSubjectAccessReview. */
  check(name: string, user: UserInfo, attrs: RequestAttributes): Promise<boolean>;
  /** The decision and its reason, for SubjectAccessReview (RBAC's `allowed by …`; empty for system:masters). */
  review(name: string, user: UserInfo, attrs: RequestAttributes): Promise<{ allowed: boolean; reason: string }>;
  /** The user's rules in a namespace, for SelfSubjectRulesReview. */
  rules(name: string, user: UserInfo, namespace: string): Promise<PolicyRule[]>;
  escalationGrant(name: string, user: UserInfo, namespace: string, roleRef: unknown): Promise<EscalationGrant>;
  stats(name: string): Promise<AuthorizerStats>;
  /** Read-your-writes for RBAC: returns once this shard has applied `revision` of `groupResource`. */
  catchUp(name: string, groupResource: string, revision: number): Promise<void>;
  /** Test hook: restart as a crash would (its policy, decision cache and rate buckets are rebuilt). */
  abort(): Promise<void>;
}

// ---- the controller manager singleton ----

export interface ControllerManagerRpc extends Rpc.DurableObjectBranded {
  /** Starts the loops if they are not running (idempotent). */
  ensureRunning(): Promise<ManagerStats>;
  proxyRules(node: string): Promise<ProxyRules | undefined>;
  stats(): Promise<ManagerStats | undefined>;
  /** Test hook: restart as a crash would; the keep-alive alarm starts the loops again. */
  abort(): Promise<void>;
}
