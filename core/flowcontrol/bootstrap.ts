// Core: kube 1.32's API Priority and Fairness bootstrap configuration — the mandatory FlowSchemas and
// PriorityLevelConfigurations (exempt, catch-all) and the suggested ones — as data, and how a start reconciles the
// stored objects with them (kube's apiserver/pkg/util/flowcontrol ensurer, the `apf.kubernetes.io/autoupdate-spec`
// annotation). The objects' values are kube's (apiserver/pkg/apis/flowcontrol/bootstrap/default.go, Apache-2.0,
// The Kubernetes Authors); the code is edgeplane's.

export const AUTOUPDATE_SPEC_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

interface Subject { kind: 'User' | 'Group' | 'ServiceAccount'; user?: { name: string }; group?: { name: string }; serviceAccount?: { name: string; namespace: string } }
export interface ResourcePolicyRule { verbs: string[]; apiGroups: string[]; resources: string[]; clusterScope?: boolean; namespaces?: string[] }
export interface NonResourcePolicyRule { verbs: string[]; nonResourceURLs: string[] }
export interface PolicyRulesWithSubjects { subjects: Subject[]; resourceRules?: ResourcePolicyRule[]; nonResourceRules?: NonResourcePolicyRule[] }

export interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  matchingPrecedence?: number;
  distinguisherMethod?: { type: 'ByUser' | 'ByNamespace' };
  rules?: PolicyRulesWithSubjects[];
}
export interface LimitedSpec {
  nominalConcurrencyShares?: number;
  lendablePercent?: number;
  borrowingLimitPercent?: number;
  limitResponse?: { type: 'Queue' | 'Reject'; queuing?: { queues?: number; handSize?: number; queueLengthLimit?: number } };
}
export interface PriorityLevelSpec {
  type: 'Exempt' | 'Limited';
  limited?: LimitedSpec;
  exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
}
interface Meta { name: string; uid?: string; annotations?: Record<string, string>; generation?: number }
export interface FlowSchema { apiVersion?: string; kind?: string; metadata: Meta; spec: FlowSchemaSpec }
export interface PriorityLevelConfiguration { apiVersion?: string; kind?: string; metadata: Meta; spec: PriorityLevelSpec }

const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';

const user = (name: string): Subject => ({ kind: 'User', user: { name } });
const group = (name: string): Subject => ({ kind: 'Group', group: { name } });
const kubeSystemAccount = (name: string): Subject => ({ kind: 'ServiceAccount', serviceAccount: { name, namespace: 'kube-system' } });
const ALL_RESOURCES: ResourcePolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };
const ALL_NON_RESOURCES: NonResourcePolicyRule = { verbs: ['*'], nonResourceURLs: ['*'] };
const getCreateUpdate = (apiGroups: string[], resources: string[], namespaces: string[]): ResourcePolicyRule => ({
  verbs: ['get', 'create', 'update'], apiGroups, resources, namespaces,
});

function flowSchema(name: string, pl: string, precedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', rules: PolicyRulesWithSubjects): FlowSchema {
  const spec: FlowSchemaSpec = { priorityLevelConfiguration: { name: pl }, matchingPrecedence: precedence };
  if (distinguisher) spec.distinguisherMethod = { type: distinguisher };
  spec.rules = [rules];
  return { apiVersion: API_VERSION, kind: 'FlowSchema', metadata: { name, annotations: { [AUTOUPDATE_SPEC_ANNOTATION]: 'true' } }, spec };
}
const everything = (...subjects: Subject[]): PolicyRulesWithSubjects => ({ subjects, resourceRules: [ALL_RESOURCES], nonResourceRules: [ALL_NON_RESOURCES] });

function queuing(name: string, shares: number, lendablePercent: number, queues: number, handSize: number, queueLengthLimit: number): PriorityLevelConfiguration {
  return {
    apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata: { name, annotations: { [AUTOUPDATE_SPEC_ANNOTATION]: 'true' } },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } } } },
  };
}

export const MANDATORY_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  {
    apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata: { name: 'exempt', annotations: { [AUTOUPDATE_SPEC_ANNOTATION]: 'true' } },
    spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  },
  {
    apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata: { name: 'catch-all', annotations: { [AUTOUPDATE_SPEC_ANNOTATION]: 'true' } },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  },
];

export const MANDATORY_FLOW_SCHEMAS: readonly FlowSchema[] = [
  flowSchema('exempt', 'exempt', 1, '', everything(group('system:masters'))),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', everything(group('system:unauthenticated'), group('system:authenticated'))),
];

export const SUGGESTED_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  queuing('system', 30, 33, 64, 6, 50),
  queuing('node-high', 40, 25, 64, 6, 50),
  queuing('leader-election', 10, 0, 16, 4, 50),
  queuing('workload-high', 40, 50, 128, 6, 50),
  queuing('workload-low', 100, 90, 128, 6, 50),
  queuing('global-default', 20, 50, 128, 6, 50),
];

export const SUGGESTED_FLOW_SCHEMAS: readonly FlowSchema[] = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', everything(group('system:nodes'))),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: [group('system:nodes')],
    resourceRules: [
      { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true, namespaces: ['*'] },
      { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
    ],
  }),
  flowSchema('probes', 'exempt', 2, '', {
    subjects: [group('system:unauthenticated'), group('system:authenticated')],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler'), kubeSystemAccount('*')],
    resourceRules: [getCreateUpdate([''], ['endpoints', 'configmaps'], ['kube-system']), getCreateUpdate(['coordination.k8s.io'], ['leases'], ['*'])],
  }),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [user('system:kube-controller-manager'), kubeSystemAccount('endpoint-controller')],
    resourceRules: [getCreateUpdate([''], ['endpoints'], ['*'])],
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: [kubeSystemAccount('*')],
    resourceRules: [getCreateUpdate([''], ['endpoints', 'configmaps'], ['*']), getCreateUpdate(['coordination.k8s.io'], ['leases'], ['*'])],
  }),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(user('system:kube-controller-manager'))),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(user('system:kube-scheduler'))),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemAccount('*'))),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything(group('system:serviceaccounts'))),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', everything(group('system:unauthenticated'), group('system:authenticated'))),
];

export const MANDATORY_NAMES = { flowSchemas: new Set(['exempt', 'catch-all']), priorityLevels: new Set(['exempt', 'catch-all']) };

/** What a start does to one bootstrap object. */
export type FlowControlReconciled<T> = { op: 'none' } | { op: 'create'; object: T } | { op: 'update'; object: T };

interface Stored { metadata?: { annotations?: Record<string, unknown>; generation?: number; [k: string]: unknown }; spec?: unknown; [k: string]: unknown }

/**
 * kube's ensurer for one bootstrap object (apiserver/pkg/apis/flowcontrol/bootstrap and the ensurer in
 * apiserver/pkg/util/flowcontrol): a missing one is created; a mandatory one always gets its spec back (the exempt
 * level's `spec.exempt` is the operator's to tune); a suggested one is brought back to the bootstrap spec only while
 * its annotation says `true` — an object without the annotation gets `true` if it was never changed (generation 1),
 * else `false`, and is left alone from then on.
 */
export function reconcileFlowControl<T extends FlowSchema | PriorityLevelConfiguration>(stored: unknown, seed: T, mandatory: boolean): FlowControlReconciled<T> {
  if (stored === undefined || stored === null || typeof stored !== 'object') return { op: 'create', object: structuredClone(seed) };
  const s = stored as Stored;
  const annotations = (s.metadata?.annotations && typeof s.metadata.annotations === 'object' ? s.metadata.annotations : {}) as Record<string, unknown>;
  const current = annotations[AUTOUPDATE_SPEC_ANNOTATION];
  let autoUpdate: boolean;
  if (mandatory) autoUpdate = true;
  else if (current === 'true' || current === 'false') autoUpdate = current === 'true';
  else autoUpdate = (s.metadata?.generation ?? 1) === 1;
  const wanted = structuredClone(seed.spec) as PriorityLevelSpec | FlowSchemaSpec;
  if (mandatory && seed.metadata.name === 'exempt' && (wanted as PriorityLevelSpec).type === 'Exempt') {
    const tuned = (s.spec as PriorityLevelSpec | undefined)?.exempt;
    if (tuned && typeof tuned === 'object') (wanted as PriorityLevelSpec).exempt = structuredClone(tuned);
  }
  const specChanged = autoUpdate && canonical(s.spec) !== canonical(wanted);
  const annotationChanged = current !== String(autoUpdate);
  if (!specChanged && !annotationChanged) return { op: 'none' };
  const object = structuredClone(s) as unknown as T;
  object.metadata = { ...(object.metadata ?? {}), name: seed.metadata.name } as Meta;
  (object.metadata as Meta).annotations = { ...(annotations as Record<string, string>), [AUTOUPDATE_SPEC_ANNOTATION]: String(autoUpdate) };
  if (specChanged) (object as { spec: unknown }).spec = wanted;
  return { op: 'update', object };
}

/** JSON with object keys sorted: a stored object need not keep the key order it was written with. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}
