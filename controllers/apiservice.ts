// Controllers: the aggregator's APIService availability loop (kube-aggregator pkg/controllers/status, 1.32), thin
// over apiservice-plan.ts: each APIService's Available condition is kept from its Service and that Service's
// Endpoints, synced when any of the three changes and every 30 s (kube's resync), written only when it changes.
// It runs as kube-apiserver's loopback identity, as kube's does. A change to a Service or its Endpoints queues
// only the APIServices that name it (an index kept per APIService event, so each event is O(1)).

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import type { Api, ResourceRef } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { availability, withCondition } from './apiservice-plan';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const APISERVICES: ResourceRef = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', namespaced: false };
export const RESYNC_MS = 30_000;

type Obj = Record<string, any>;

export interface ApiServiceDeps {
  api: Api;
  apiServices: SharedInformer;
  services: SharedInformer;
  endpoints: SharedInformer;
  clock: Clock;
}

const serviceKey = (o: Obj): string | undefined => {
  const ref = o?.spec?.service;
  return ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : undefined;
};

export class ApiServiceAvailabilityController {
  readonly queue: WorkQueue;
  // service key → the APIServices naming it; APIService name → the service key it names.
  private readonly byService = new Map<string, Set<string>>();
  private readonly serviceOf = new Map<string, string>();

  /** The loopback identity's client, shared with the CRD registration loop that also runs in kube-apiserver. */
  get api(): Api {
    return this.d.api;
  }

  constructor(private readonly d: ApiServiceDeps) {
    this.queue = new WorkQueue(d.clock);
    const track = (o: KubeObject) => {
      this.index(o.metadata.name!, serviceKey(o));
      this.queue.add(o.metadata.name!);
    };
    d.apiServices.addHandlers({
      add: track, update: track,
      delete: (o) => this.index(o.metadata.name!, undefined),
    });
    const touched = (o: KubeObject) => {
      for (const name of this.byService.get(objectKey(o)) ?? []) this.queue.add(name);
    };
    d.services.addHandlers({ add: touched, update: touched, delete: touched });
    d.endpoints.addHandlers({ add: touched, update: touched, delete: touched });
  }

  private index(name: string, key: string | undefined): void {
    const prior = this.serviceOf.get(name);
    if (prior === key) return;
    if (prior !== undefined) {
      const set = this.byService.get(prior);
      set?.delete(name);
      if (set && set.size === 0) this.byService.delete(prior);
    }
    if (key === undefined) this.serviceOf.delete(name);
    else {
      this.serviceOf.set(name, key);
      const set = this.byService.get(key) ?? new Set<string>();
      set.add(name);
      this.byService.set(key, set);
    }
  }

  run(workers = 2): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError('apiservice-availability') }));
  }

  async sync(name: string): Promise<void> {
    const cached = this.d.apiServices.get(name);
    if (!cached) return;
    try {
      const ref = serviceKey(cached);
      const condition = availability(cached, ref ? this.d.services.get(ref) : undefined, ref ? this.d.endpoints.get(ref) : undefined);
      const now = new Date(this.d.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const status = withCondition(cached.status as Obj | undefined, condition, now);
      if (JSON.stringify(status) === JSON.stringify(cached.status ?? {})) return;
      await this.d.api.update(APISERVICES, { ...structuredClone(cached), status }, 'status');
    } finally {
      // Remote APIServices are rechecked every resync (kube's 30 s), local ones need no recheck.
      if (cached.spec && (cached.spec as Obj).service) this.queue.addAfter(name, RESYNC_MS);
    }
  }
}
