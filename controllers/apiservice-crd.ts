// Controllers: kube-apiserver's crdRegistrationController with the autoregister controller it feeds
// (kubernetes pkg/controlplane/controller/crdregistration, kube-aggregator pkg/controllers/autoregister, 1.32):
// every group version a CRD serves gets a local APIService `<version>.<group>` (service unset, group priority
// 1000, version priority 100, label kube-aggregator.kubernetes.io/automanaged: "true"), kept to that spec, and
// deleted once no CRD serves it. Group versions edgeplane serves built in are left to their own APIServices;
// an APIService of that name without the automanaged label is someone else's and is never touched. It runs as
// kube-apiserver's loopback identity. A CRD event queues its group versions; a sync reads only that group's
// CRDs (an index kept per CRD event), so each reaction is linear in the CRDs of one group.

import type { KubeObject } from '../client/types';
import { RESOURCE_TYPES } from '../core/registry';
import { isAlreadyExists, isNotFound, type Api, type ResourceRef } from './api-client';
import { APISERVICES } from './apiservice';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const CRDS: ResourceRef = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false };
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
const MANAGE_CONTINUOUSLY = 'true';

type Obj = Record<string, any>;

const BUILT_IN = new Set(RESOURCE_TYPES.map((t) => `${t.group}/${t.version}`));

/** The APIService crdRegistrationController asks autoregister to keep for a group version, or undefined for none. */
export function desiredCrdApiService(group: string, version: string, crds: Iterable<Obj>): Obj | undefined {
  if (BUILT_IN.has(`${group}/${version}`)) return undefined; // APIServiceAlreadyExists: not the CRDs' to register
  for (const crd of crds) {
    if (crd?.spec?.group !== group) continue;
    const versions: Obj[] = Array.isArray(crd.spec.versions) ? crd.spec.versions : [];
    if (versions.some((v) => v?.name === version && v?.served === true)) {
      return {
        apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService',
        metadata: { name: `${version}.${group}`, labels: { [AUTOMANAGED_LABEL]: MANAGE_CONTINUOUSLY } },
        spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 100 },
      };
    }
  }
  return undefined;
}

export type AutoregisterAction = { verb: 'create' | 'update'; object: Obj } | { verb: 'delete' } | undefined;

/** autoregister checkAPIService for a continuously managed APIService: what to write, if anything. */
export function autoregister(current: Obj | undefined, desired: Obj | undefined): AutoregisterAction {
  if (!current) return desired ? { verb: 'create', object: desired } : undefined;
  if (!current.metadata?.labels?.[AUTOMANAGED_LABEL]) return undefined; // not automanaged: someone else's
  if (!desired) return current.metadata.labels[AUTOMANAGED_LABEL] === MANAGE_CONTINUOUSLY ? { verb: 'delete' } : undefined;
  if (JSON.stringify(current.spec) === JSON.stringify(desired.spec)) return undefined;
  return { verb: 'update', object: { ...structuredClone(current), spec: desired.spec } };
}

export interface CrdRegistrationDeps {
  api: Api;
  crds: SharedInformer;
  apiServices: SharedInformer;
  clock: Clock;
}

export class CrdRegistrationController {
  readonly queue: WorkQueue;
  // group → the names of the CRDs of that group.
  private readonly byGroup = new Map<string, Set<string>>();
  private readonly groupOf = new Map<string, string>();

  constructor(private readonly d: CrdRegistrationDeps) {
    this.queue = new WorkQueue(d.clock);
    const enqueue = (o: KubeObject) => {
      const crd = o as Obj;
      const group = String(crd.spec?.group ?? '');
      this.index(o.metadata.name!, group);
      for (const v of Array.isArray(crd.spec?.versions) ? crd.spec.versions : []) this.queue.add(`${v?.name ?? ''}.${group}`);
    };
    d.crds.addHandlers({
      add: enqueue,
      update: (o, old) => {
        enqueue(old as KubeObject); // versions the CRD no longer has are looked at again too
        enqueue(o);
      },
      delete: (o) => {
        enqueue(o);
        this.index(o.metadata.name!, undefined);
      },
    });
    // An automanaged APIService changed or deleted by someone else is put back (autoregister watches them too).
    const apiService = (o: KubeObject) => {
      if ((o.metadata.labels as Record<string, string> | undefined)?.[AUTOMANAGED_LABEL] === MANAGE_CONTINUOUSLY) this.queue.add(o.metadata.name!);
    };
    d.apiServices.addHandlers({ add: apiService, update: apiService, delete: apiService });
  }

  private index(name: string, group: string | undefined): void {
    const prior = this.groupOf.get(name);
    if (prior === group) return;
    if (prior !== undefined) {
      const set = this.byGroup.get(prior);
      set?.delete(name);
      if (set && set.size === 0) this.byGroup.delete(prior);
    }
    if (group === undefined) this.groupOf.delete(name);
    else {
      this.groupOf.set(name, group);
      const set = this.byGroup.get(group) ?? new Set<string>();
      set.add(name);
      this.byGroup.set(group, set);
    }
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError('crd-autoregister') }));
  }

  /** key: `<version>.<group>`, the APIService's name. */
  async sync(key: string): Promise<void> {
    const dot = key.indexOf('.');
    const version = key.slice(0, dot), group = key.slice(dot + 1);
    if (dot <= 0 || !group) return;
    const crds = [...(this.byGroup.get(group) ?? [])].map((n) => this.d.crds.get(n)).filter((c): c is KubeObject => !!c);
    const action = autoregister(this.d.apiServices.get(key) as Obj | undefined, desiredCrdApiService(group, version, crds as Obj[]));
    if (!action) return;
    try {
      if (action.verb === 'create') await this.d.api.create(APISERVICES, '', action.object as KubeObject);
      else if (action.verb === 'update') await this.d.api.update(APISERVICES, action.object as KubeObject);
      else await this.d.api.delete(APISERVICES, '', key);
    } catch (e) {
      // The cache was behind: the next event for the APIService brings this key back.
      if ((action.verb === 'create' && isAlreadyExists(e)) || (action.verb === 'delete' && isNotFound(e))) return;
      throw e;
    }
  }
}
