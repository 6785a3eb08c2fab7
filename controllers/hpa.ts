// Controllers: the HorizontalPodAutoscaler controller (kubernetes pkg/controller/podautoscaler/horizontal.go,
// 1.32), thin over hpa-plan.ts: every HPA is synced every 15 s (kube's resync; an add or update waits for the
// next round as kube's rate-limited queue makes it). A sync reads the target's `/scale` (Deployments,
// ReplicaSets, StatefulSets, ReplicationControllers, custom resources with a scale subresource), lists the
// target's pods from the shared informer and their PodMetrics from metrics.k8s.io (one list, by label
// selector), plans, writes the new scale when it changed, records kube's events and writes the status when it
// differs. Work per sync is linear in the HPA's pods; the per-HPA memory is bounded by its windows.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { errorText, type Api, type HttpApi, type ResourceRef } from './api-client';
import type { Clock } from './clock';
import type { EventRecorder } from './events';
import type { SharedInformer } from './informers';
import { failedGetScale, newMemory, orderStatus, planSync, RESYNC_MS, rescaled, rescaleFailed, type HpaMemory, type Scale } from './hpa-plan';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '../core/selectors/label-selector';
import { allResourceTypes } from '../core/registry';

export const COMPONENT = 'horizontal-pod-autoscaler';
export const HPAS: ResourceRef = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', namespaced: true };

type Obj = Record<string, any>;

export interface ScaleTarget {
  apiVersion?: string;
  kind?: string;
  name?: string;
}

/** The target's Scale (autoscaling/v1) and the resource it was read through, to write it back. */
export interface ScaleClient {
  get(namespace: string, target: ScaleTarget): Promise<{ scale: Obj; resource: ResourceRef }>;
  update(namespace: string, resource: ResourceRef, scale: Obj): Promise<Obj>;
}

/** metrics.k8s.io PodMetrics of a namespace's pods matching a label selector. */
export interface MetricsClient {
  podMetrics(namespace: string, selector: string): Promise<Obj[]>;
}

export interface HpaDeps {
  api: Api;
  hpas: SharedInformer;
  pods: SharedInformer;
  scales: ScaleClient;
  metrics: MetricsClient;
  recorder: EventRecorder;
  clock: Clock;
  resyncMs?: number;
}

export class HorizontalPodAutoscalerController {
  readonly queue: WorkQueue;
  private readonly memory = new Map<string, HpaMemory>();
  // kube's hpaSelectors: namespace → HPA key → its target's parsed selector, learnt at each sync.
  private readonly selectors = new Map<string, Map<string, LabelSelector>>();
  private readonly resyncMs: number;

  constructor(private readonly d: HpaDeps) {
    this.queue = new WorkQueue(d.clock);
    this.resyncMs = d.resyncMs ?? RESYNC_MS;
    const enqueue = (o: KubeObject) => this.queue.addAfter(objectKey(o), this.resyncMs);
    d.hpas.addHandlers({
      add: enqueue,
      update: enqueue,
      delete: (o) => {
        // deleteHPA: the recommendations and scale events go with it.
        this.memory.delete(objectKey(o));
        this.forgetSelector(objectKey(o));
      },
    });
  }

  private forgetSelector(key: string): void {
    const ns = key.slice(0, key.indexOf('/'));
    const known = this.selectors.get(ns);
    known?.delete(key);
    if (known && known.size === 0) this.selectors.delete(ns);
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  async sync(key: string): Promise<void> {
    const cached = this.d.hpas.get(key);
    if (!cached) {
      this.memory.delete(key);
      this.forgetSelector(key);
      return;
    }
    try {
      await this.reconcile(cached);
    } finally {
      // The next round, whatever this one did (kube requeues every HPA each resync period).
      if (this.d.hpas.get(key)) this.queue.addAfter(key, this.resyncMs);
    }
  }

  private async reconcile(hpa: KubeObject): Promise<void> {
    const now = this.d.clock.now();
    const key = objectKey(hpa);
    const ns = hpa.metadata.namespace ?? '';
    const target: ScaleTarget = (hpa.spec as Obj)?.scaleTargetRef ?? {};
    let scale: Obj, resource: ResourceRef;
    try {
      ({ scale, resource } = await this.d.scales.get(ns, target));
    } catch (e) {
      const failed = failedGetScale(hpa, errorText(e), now);
      this.d.recorder.event(hpa, 'Warning', failed.event.reason, failed.event.message);
      await this.writeStatus(hpa, failed.status);
      throw new Error(`failed to query scale subresource for ${target.kind}/${ns}/${target.name}: ${errorText(e)}`);
    }
    const current: Scale = {
      replicas: Number.isInteger(scale?.spec?.replicas) ? scale.spec.replicas : 0,
      statusReplicas: Number.isInteger(scale?.status?.replicas) ? scale.status.replicas : 0,
      selector: typeof scale?.status?.selector === 'string' ? scale.status.selector : '',
    };
    let memory = this.memory.get(key);
    if (!memory) this.memory.set(key, (memory = newMemory()));
    const selected = this.validateSelector(hpa, current.selector);
    let podMetrics: Obj[] | { error: string } = [];
    if (!selected.error) {
      try {
        podMetrics = await this.d.metrics.podMetrics(ns, current.selector);
      } catch (e) {
        podMetrics = { error: errorText(e) };
      }
    }
    const plan = planSync({ hpa, scale: current, pods: selected.pods, podMetrics, selectorError: selected.error, now, memory });
    if (plan.rescale) {
      try {
        await this.d.scales.update(ns, resource, { ...scale, spec: { ...scale.spec, replicas: plan.desiredReplicas } });
        rescaled(plan, hpa, memory, now);
      } catch (e) {
        rescaleFailed(plan, errorText(e), now);
        plan.error = `failed to rescale ${target.kind}/${ns}/${target.name}: ${errorText(e)}`;
      }
    }
    for (const ev of plan.events) this.d.recorder.event(hpa, ev.type, ev.reason, ev.message);
    await this.writeStatus(hpa, orderStatus(plan.status));
    if (plan.error) throw new Error(plan.error);
  }

  /**
   * validateAndParseSelector: the namespace's pods the scale's selector picks, or why the selector is refused — it
   * does not parse (InvalidSelector), or another HPA's selector also picks some of those pods (AmbiguousSelector,
   * kube's hpasControllingPodsUnderSelector). The HPA's selector is remembered from its first sync on, as kube's
   * hpaSelectors map learns it. Pods are matched once per distinct label set, so the check costs the selected pods
   * plus, per other HPA of the namespace, its match against those label sets (a Deployment's pods have one or two).
   */
  private validateSelector(hpa: KubeObject, text: string): { pods: Obj[]; error?: { reason: string; message: string } } {
    if (!text) return { pods: [] };
    const ns = hpa.metadata.namespace ?? '';
    const key = objectKey(hpa);
    let parsed;
    try {
      parsed = parseLabelSelector(text);
    } catch (e) {
      return { pods: [], error: { reason: 'InvalidSelector', message: `couldn't convert selector into a corresponding internal selector object: ${(e as Error).message}` } };
    }
    let known = this.selectors.get(ns);
    if (!known) this.selectors.set(ns, (known = new Map()));
    known.set(key, parsed);
    const pods = this.d.pods.byNamespace(ns).filter((p) => matchesLabels(parsed, p.metadata.labels as Record<string, string> | undefined));
    const labelSets = new Map<string, Record<string, string> | undefined>();
    for (const p of pods) {
      const labels = p.metadata.labels as Record<string, string> | undefined;
      labelSets.set(JSON.stringify(Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), labels);
    }
    const controlling: string[] = [];
    for (const [other, selector] of known) {
      for (const labels of labelSets.values()) {
        if (matchesLabels(selector, labels)) {
          controlling.push(other);
          break;
        }
      }
    }
    if (controlling.length > 1) {
      // kube prints its []Key with %v (map order); sorted here so the message is stable.
      controlling.sort();
      return { pods, error: { reason: 'AmbiguousSelector', message: `pods by selector ${text} are controlled by multiple HPAs: [${controlling.join(' ')}]` } };
    }
    return { pods };
  }

  /** updateStatusIfNeeded: written only when it differs from what is stored. */
  private async writeStatus(hpa: KubeObject, status: Obj): Promise<void> {
    if (JSON.stringify(orderStatus((hpa.status as Obj) ?? {})) === JSON.stringify(status)) return;
    try {
      await this.d.api.update(HPAS, { ...structuredClone(hpa), status }, 'status');
    } catch (e) {
      this.d.recorder.event(hpa, 'Warning', 'FailedUpdateStatus', errorText(e));
      throw e;
    }
  }
}

// ---- the clients over the API ----

const DISCOVERY_TTL_MS = 60_000;
const MAX_DISCOVERY_ENTRIES = 256;

/**
 * Scale through the API as the controller's identity: the target's kind mapped to its resource (built-in types
 * from the registry, custom ones from the group version's discovery document, cached a minute — kube's
 * RESTMapper), then GET/PUT <resource>/<name>/scale.
 */
export function apiScaleClient(api: HttpApi, clock: Clock): ScaleClient {
  const discovered = new Map<string, { at: number; resources: Obj[] }>();
  const resolve = async (target: ScaleTarget): Promise<ResourceRef> => {
    const apiVersion = String(target.apiVersion ?? '');
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (!version || apiVersion.split('/').length > 2) throw new Error(`invalid API version in scale target reference: unexpected GroupVersion string: ${apiVersion}`);
    const builtIn = allResourceTypes().find((t) => t.group === group && t.version === version && t.kind === target.kind && t.subresources.includes('scale'));
    if (builtIn) return { group, version, resource: builtIn.resource, namespaced: builtIn.namespaced };
    const gv = `${group}/${version}`;
    let entry = discovered.get(gv);
    if (!entry || clock.now() - entry.at > DISCOVERY_TTL_MS) {
      const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
      let doc: Obj;
      try {
        doc = await api.request('GET', path);
      } catch (e) {
        throw new Error(`unable to determine resource for scale target reference: ${errorText(e)}`);
      }
      if (discovered.size >= MAX_DISCOVERY_ENTRIES) discovered.clear();
      entry = { at: clock.now(), resources: Array.isArray(doc?.resources) ? doc.resources : [] };
      discovered.set(gv, entry);
    }
    const found = entry.resources.find((r) => r?.kind === target.kind && typeof r?.name === 'string' && !r.name.includes('/'));
    if (!found) throw new Error(`unable to determine resource for scale target reference: no matches for kind "${target.kind}" in version "${gv}"`);
    return { group, version, resource: found.name, namespaced: !!found.namespaced };
  };
  const path = (r: ResourceRef, ns: string, name: string) => {
    const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
    return `${base}/${r.namespaced ? `namespaces/${ns}/` : ''}${r.resource}/${encodeURIComponent(name)}/scale`;
  };
  return {
    async get(ns, target) {
      const resource = await resolve(target);
      return { scale: await api.request('GET', path(resource, ns, String(target.name ?? ''))), resource };
    },
    update: (ns, resource, scale) => api.request('PUT', path(resource, ns, String(scale?.metadata?.name ?? '')), scale),
  };
}

/** PodMetrics through metrics.k8s.io, as kube's resource metrics client lists them. */
export function apiMetricsClient(api: HttpApi): MetricsClient {
  return {
    async podMetrics(ns, selector) {
      const list = await api.request('GET', `/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`);
      return Array.isArray(list?.items) ? list.items : [];
    },
  };
}
