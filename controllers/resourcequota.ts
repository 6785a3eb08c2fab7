// Controllers: the ResourceQuota controller (kubernetes pkg/controller/resourcequota): each quota's status holds
// its spec.hard and what the namespace's objects use of it (core/quota/usage.ts, the same counting the
// ResourceQuota admission plugin charges by). Admission raises status.used as objects are created; this loop
// recounts — when a quota is created or its spec changes, when a pod is deleted or ends, when a Service or claim
// is deleted or changes what it uses (kube's replenishment),
// and every resync period for the other types — so deletions give units back and a charge whose write failed is
// forgotten. Writes status as system:serviceaccount:kube-system:resourcequota-controller.
//
// Bounded: a pod event queues the quotas of its namespace only; a sync counts pods from the informer cache and
// other types with one bounded list each (a namespace with more than MAX_COUNTED objects of a type is counted as
// that many, which can only over-count and so never admits more than the quota).

import type { KubeObject } from '../client/types';
import { isConflict, isNotFound, type Api, type ResourceRef } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import { isVersionView, RESOURCE_TYPES, type ResourceType } from '../core/registry';
import { matchingResources, podCounts, totalUsage, usage } from '../core/quota/usage';
import { resourceMap, type ResourceList } from '../core/admission/resource-lists';

export const COMPONENT = 'resourcequota-controller';
export const RESOURCE_QUOTAS: ResourceRef = { group: '', version: 'v1', resource: 'resourcequotas', namespaced: true };
// kube-controller-manager --resource-quota-sync-period: 5m.
export const QUOTA_RESYNC_MS = 5 * 60_000;
export const MAX_COUNTED = 5000;
const PAGE = 500;

/** Lists a type's objects in a namespace (at most `max`); injected so tests need no server. */
export type Lister = (type: ResourceType, namespace: string, max: number) => Promise<KubeObject[]>;

type Obj = Record<string, any>;
const POD_TYPE = RESOURCE_TYPES.find((t) => t.group === '' && t.resource === 'pods')!;
const SERVICE_TYPE = RESOURCE_TYPES.find((t) => t.group === '' && t.resource === 'services')!;
const CLAIM_TYPE = RESOURCE_TYPES.find((t) => t.group === '' && t.resource === 'persistentvolumeclaims')!;

export class ResourceQuotaController {
  readonly queue: WorkQueue;

  constructor(private readonly o: { api: Api; quotas: SharedInformer; pods: SharedInformer; list: Lister; clock: Clock; services?: SharedInformer; claims?: SharedInformer }) {
    this.queue = new WorkQueue(o.clock);
    const key = (q: KubeObject) => `${q.metadata.namespace}/${q.metadata.name}`;
    o.quotas.addHandlers({
      add: (q) => this.queue.add(key(q)),
      update: (q, old) => {
        if (JSON.stringify((q as Obj).spec) !== JSON.stringify((old as Obj).spec) || !(q as Obj).status?.used) this.queue.add(key(q));
      },
    });
    const replenish = (pod: KubeObject) => {
      for (const q of o.quotas.byNamespace(pod.metadata.namespace ?? '')) this.queue.add(key(q));
    };
    o.pods.addHandlers({
      delete: replenish,
      update: (pod, old) => {
        const now = o.clock.now();
        if (podCounts(old as Obj, now) && !podCounts(pod as Obj, now)) replenish(pod);
      },
    });
    // Services and claims give units back when deleted and when an update lowers what they use (kube's quota
    // monitor: a Service's quota type changing, a claim's request shrinking), as updates are charged their growth.
    for (const [informer, type] of [[o.services, SERVICE_TYPE], [o.claims, CLAIM_TYPE]] as const) {
      informer?.addHandlers({
        delete: replenish,
        update: (obj, old) => {
          if (JSON.stringify(usage(type, obj as Obj)) !== JSON.stringify(usage(type, old as Obj))) replenish(obj);
        },
      });
    }
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  async sync(key: string): Promise<void> {
    const quota = this.o.quotas.get(key) as Obj | undefined;
    if (!quota) return;
    const namespace = quota.metadata.namespace as string;
    const hard = resourceMap(quota.spec?.hard);
    const names = Object.keys(hard);
    let used: ResourceList = {};
    for (const type of countedTypes(names)) {
      const wanted = matchingResources(type, names);
      const objects = type === POD_TYPE
        ? this.o.pods.byNamespace(namespace).filter((p) => podCounts(p as Obj, this.o.clock.now()))
        : await this.o.list(type, namespace, MAX_COUNTED);
      used = { ...used, ...totalUsage(type, objects as Obj[], wanted, quota) };
    }
    const status = { hard, used };
    if (JSON.stringify(sortKeys(quota.status?.hard)) !== JSON.stringify(sortKeys(hard)) || JSON.stringify(sortKeys(quota.status?.used)) !== JSON.stringify(sortKeys(used))) {
      try {
        await this.o.api.update(RESOURCE_QUOTAS, { ...(quota as KubeObject), status }, 'status');
      } catch (e) {
        if (isNotFound(e)) return;
        if (isConflict(e)) {
          this.queue.addAfter(key, 100); // a charge got in between: count again with the newer quota
          return;
        }
        throw e;
      }
    }
    this.queue.addAfter(key, QUOTA_RESYNC_MS);
  }
}

/** The stored types whose usage any of `names` limits. */
function countedTypes(names: string[]): ResourceType[] {
  return RESOURCE_TYPES.filter((t) => t.stored && !t.viewOf && !isVersionView(t) && t.namespaced && !t.custom && matchingResources(t, names).length > 0);
}

function sortKeys(v: unknown): [string, string][] {
  return Object.entries(resourceMap(v)).sort(([a], [b]) => (a < b ? -1 : 1));
}

/** A Lister over the API: pages of PAGE objects, stopping at `max`. */
export function apiLister(request: (path: string) => Promise<{ items?: KubeObject[]; metadata?: { continue?: string } }>): Lister {
  return async (type, namespace, max) => {
    const base = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
    const out: KubeObject[] = [];
    let cont = '';
    do {
      const page = await request(`${base}/namespaces/${encodeURIComponent(namespace)}/${type.resource}?limit=${PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      out.push(...(page.items ?? []));
      cont = page.metadata?.continue ?? '';
    } while (cont && out.length < max);
    return out;
  };
}
