// Controllers: the EndpointSlice controller and the legacy Endpoints controller (kubernetes
// pkg/controller/endpointslice/endpointslice_controller.go, pkg/controller/endpoint/endpoints_controller.go).
// Both key on the Service (`ns/name`), are woken by Service and Pod changes (a pod wakes every Service of
// its namespace whose selector matches its old or new labels) and by changes to what they wrote, and
// write only when the computed objects differ from the informer's (no churn when nothing changed).
// Services without a selector and ExternalName services are skipped, as kube does. The slice tracker
// (endpointslice_tracker.go) is reduced to: the resourceVersions this controller last wrote per slice;
// a sync that sees an older one in its informer waits for the informer instead of acting on stale slices.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { isConflict, isNotFound, type Api, type ResourceRef } from './api-client';
import type { Clock } from './clock';
import type { EventRecorder } from './events';
import type { SharedInformer } from './informers';
import { labelsOf } from './owner-refs';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import {
  addressTypeOf, CONTROLLER_NAME, desiredEndpoints, MANAGED_BY_LABEL, MAX_ENDPOINTS_PER_SLICE, planSlices, SERVICE_NAME_LABEL, serviceSpec, ZONE_LABEL, type Slice,
} from './endpoint-slicing';
import { endpointsLabels, endpointsSubsets } from './endpoints-subsets';

export const SLICE_COMPONENT = 'endpoint-slice-controller';
export const ENDPOINTS_COMPONENT = 'endpoint-controller';
export const ENDPOINTSLICES: ResourceRef = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', namespaced: true };
export const SERVICES: ResourceRef = { group: '', version: 'v1', resource: 'services', namespaced: true };
export const ENDPOINTS: ResourceRef = { group: '', version: 'v1', resource: 'endpoints', namespaced: true };

const STALE_RETRY_MS = 100;

/** Whether a service's selector (a plain map) selects these labels; an empty or absent selector selects nothing here. */
export function selects(svc: KubeObject, labels: Record<string, string>): boolean {
  const sel = serviceSpec(svc).selector;
  if (!sel) return false;
  const keys = Object.keys(sel);
  return keys.length > 0 && keys.every((k) => labels[k] === sel[k]);
}

const managedService = (svc: KubeObject) => serviceSpec(svc).type !== 'ExternalName' && serviceSpec(svc).selector != null;

/** Shared wiring: the queue of service keys both controllers follow. */
function serviceQueue(clock: Clock, services: SharedInformer, pods: SharedInformer): WorkQueue {
  const queue = new WorkQueue(clock);
  const enqueueSvc = (svc: KubeObject) => queue.add(objectKey(svc));
  services.addHandlers({ add: enqueueSvc, update: enqueueSvc, delete: enqueueSvc });
  const podChanged = (pod: KubeObject, old?: KubeObject) => {
    const ns = pod.metadata.namespace ?? '';
    for (const svc of services.byNamespace(ns)) {
      if (selects(svc, labelsOf(pod)) || (old && selects(svc, labelsOf(old)))) queue.add(objectKey(svc));
    }
  };
  pods.addHandlers({ add: (p) => podChanged(p), update: (p, old) => podChanged(p, old), delete: (p) => podChanged(p) });
  return queue;
}

export interface SliceDeps {
  api: Api;
  services: SharedInformer;
  pods: SharedInformer;
  nodes: SharedInformer;
  slices: SharedInformer;
  clock: Clock;
  recorder: EventRecorder;
  maxEndpointsPerSlice?: number;
}

export class EndpointSliceController {
  readonly queue: WorkQueue;
  private readonly written = new Map<string, Map<string, number>>(); // service key → slice key → resourceVersion of our last write (0: deleted)

  constructor(private readonly d: SliceDeps) {
    this.queue = serviceQueue(d.clock, d.services, d.pods);
    const sliceChanged = (s: KubeObject) => {
      const l = labelsOf(s);
      if (l[MANAGED_BY_LABEL] === CONTROLLER_NAME && l[SERVICE_NAME_LABEL]) this.queue.add(`${s.metadata.namespace}/${l[SERVICE_NAME_LABEL]}`);
    };
    d.slices.addHandlers({
      add: sliceChanged, update: sliceChanged,
      delete: (s) => {
        // Gone, whoever deleted it: nothing of it left to wait for.
        const svc = labelsOf(s)[SERVICE_NAME_LABEL];
        if (svc) this.written.get(`${s.metadata.namespace}/${svc}`)?.delete(objectKey(s));
        sliceChanged(s);
      },
    });
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(SLICE_COMPONENT) }));
  }

  private ownSlices(namespace: string, service: string): Slice[] {
    return this.d.slices.byNamespace(namespace).filter((s) => {
      const l = labelsOf(s);
      return l[SERVICE_NAME_LABEL] === service && l[MANAGED_BY_LABEL] === CONTROLLER_NAME;
    }) as Slice[];
  }

  async sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/');
    const svc = this.d.services.get(key);
    const slices = this.ownSlices(namespace, name);
    if (!svc || !managedService(svc)) {
      // Deleted: the garbage collector removes the slices (ownerReference); forget what we tracked.
      this.written.delete(key);
      return;
    }
    let tracked = this.written.get(key);
    if (!tracked) this.written.set(key, (tracked = new Map()));
    if (tracked.size && staleFor(tracked, slices)) {
      this.queue.addAfter(key, STALE_RETRY_MS);
      return;
    }
    const addressType = addressTypeOf(svc);
    const pods = this.d.pods.byNamespace(namespace).filter((p) => selects(svc, labelsOf(p)));
    const zoneOf = (node: string) => (this.d.nodes.get(node)?.metadata.labels as Record<string, string> | undefined)?.[ZONE_LABEL];
    const desired = desiredEndpoints(svc, pods, addressType, zoneOf);
    const plan = planSlices(svc, slices.filter((s) => s.addressType === addressType), desired, addressType, this.d.maxEndpointsPerSlice ?? MAX_ENDPOINTS_PER_SLICE);
    // Slices of another address type (the service changed family) go.
    plan.delete.push(...slices.filter((s) => s.addressType !== addressType));
    try {
      for (const s of plan.update) {
        const out = await this.d.api.update(ENDPOINTSLICES, s);
        tracked.set(objectKey(out), Number(out.metadata.resourceVersion));
      }
      for (const s of plan.create) {
        const out = await this.d.api.create(ENDPOINTSLICES, namespace, s);
        tracked.set(objectKey(out), Number(out.metadata.resourceVersion));
      }
      for (const s of plan.delete) {
        try {
          await this.d.api.delete(ENDPOINTSLICES, namespace, s.metadata.name!, { preconditions: { uid: s.metadata.uid as string } });
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
        tracked.set(objectKey(s), 0);
      }
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (!isConflict(e) && code !== 403) this.d.recorder.event(svc, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${key}: ${(e as Error).message}`);
      throw e;
    }
  }
}

/** EndpointSliceTracker.StaleSlices: the informer has not yet seen one of our writes. Forgets deletes it has seen. */
function staleFor(tracked: Map<string, number>, slices: readonly Slice[]): boolean {
  const seen = new Map(slices.map((s) => [objectKey(s), Number(s.metadata.resourceVersion)]));
  for (const [k, rv] of tracked) {
    const have = seen.get(k);
    if (rv === 0) {
      if (have !== undefined) return true;
      tracked.delete(k);
    } else if (have === undefined || have < rv) return true;
  }
  return false;
}

export interface EndpointsDeps {
  api: Api;
  services: SharedInformer;
  pods: SharedInformer;
  endpoints: SharedInformer;
  clock: Clock;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const sameLabels = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => a[k] === b[k]);

/** The legacy Endpoints controller: one Endpoints object per selector Service, same name. */
export class EndpointsController {
  readonly queue: WorkQueue;

  constructor(private readonly d: EndpointsDeps) {
    this.queue = serviceQueue(d.clock, d.services, d.pods);
    d.endpoints.addHandlers({ delete: (ep) => this.queue.add(objectKey(ep)) });
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(ENDPOINTS_COMPONENT) }));
  }

  async sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/');
    const svc = this.d.services.get(key);
    const current = this.d.endpoints.get(key);
    if (!svc) {
      // The Service is gone: its Endpoints go too (endpoints_controller.go syncService, service not found).
      if (current) {
        await this.d.api.delete(ENDPOINTS, namespace, name, { preconditions: { uid: current.metadata.uid as string } }).catch((e) => {
          if (!isNotFound(e) && !isConflict(e)) throw e;
        });
      }
      return;
    }
    if (!managedService(svc)) return;
    const pods = this.d.pods.byNamespace(namespace).filter((p) => selects(svc, labelsOf(p)));
    const subsets = endpointsSubsets(svc, pods);
    const labels = endpointsLabels(svc);
    if (current && sameJson((current as { subsets?: unknown }).subsets ?? [], subsets) && sameLabels(labelsOf(current), labels)) return;
    const body: KubeObject = {
      apiVersion: 'v1', kind: 'Endpoints',
      metadata: current ? { ...current.metadata, labels } : { name, namespace, labels },
      subsets,
    };
    if (current) {
      await this.d.api.update(ENDPOINTS, body);
      return;
    }
    // AlreadyExists (the informer lags) fails the sync; the retry sees the object.
    await this.d.api.create(ENDPOINTS, namespace, body);
  }
}
