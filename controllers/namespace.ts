// Controllers: the namespace controller (kubernetes pkg/controller/namespace, deletion/
// namespaced_resources_deleter.go). A namespace DELETE only marks it (deletionTimestamp, phase
// Terminating, `kubernetes` still in spec.finalizers); this loop, 5 s later (namespaceDeletionGracePeriod),
// discovers every namespaced resource that can be listed and deleted (built-ins and custom resources
// alike, through /api and /apis), deletes each collection with propagationPolicy=Background, counts what
// is left and what of it holds finalizers, writes kube's Terminating conditions to the namespace status,
// requeues while content remains, and at last removes `kubernetes` through PUT namespaces/<n>/finalize,
// after which the server deletes the namespace.

import type { KubeObject } from '../client/types';
import { isNotFound } from './api-client';
import type { Clock } from './clock';
import { kubeTime } from './events';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'namespace-controller';
export const FINALIZER = 'kubernetes';
export const DELETION_GRACE_MS = 5_000;

/** The few raw calls this controller makes (discovery, collections, status, finalize). */
export interface RawApi {
  request(method: string, path: string, body?: unknown): Promise<any>;
}

export interface Discovered { group: string; version: string; resource: string; deleteCollection: boolean }

interface Condition { type: string; status: 'True' | 'False'; reason: string; message: string; lastTransitionTime?: string }

const groupResource = (d: Discovered) => `${d.resource}.${d.group}`; // GroupResource.String(): "pods." for core

/** The conditions kube sets on a terminating namespace (deletion/status_condition_utils.go), in its order. */
export function terminatingConditions(o: { discoveryErrors: string[]; deleteErrors: string[]; remaining: Map<string, number>; finalizers: Map<string, number> }): Condition[] {
  const list = (m: Map<string, number>, fmt: (k: string, n: number) => string) => [...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => fmt(k, n)).join(', ');
  return [
    o.discoveryErrors.length
      ? { type: 'NamespaceDeletionDiscoveryFailure', status: 'True', reason: 'DiscoveryFailed', message: `Discovery failed for some groups, ${o.discoveryErrors.length} failing: ${o.discoveryErrors.join(', ')}` }
      : { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    o.deleteErrors.length
      ? { type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${o.deleteErrors.length} remaining: ${o.deleteErrors.join(', ')}` }
      : { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    o.remaining.size
      ? { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${list(o.remaining, (k, n) => `${k} has ${n} resource instances`)}` }
      : { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
    o.finalizers.size
      ? { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${list(o.finalizers, (k, n) => `${k} in ${n} resource instances`)}` }
      : { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
  ];
}

/** Keeps lastTransitionTime of conditions whose status did not change (UpdateConditions). */
export function mergeConditions(old: Condition[] | undefined, next: Condition[], now: string): Condition[] {
  const prior = new Map((old ?? []).map((c) => [c.type, c]));
  return next.map((c) => {
    const p = prior.get(c.type);
    return { ...c, lastTransitionTime: p && p.status === c.status ? p.lastTransitionTime : now };
  });
}

export class NamespaceController {
  readonly queue: WorkQueue;

  constructor(private readonly api: RawApi, private readonly namespaces: SharedInformer, private readonly clock: Clock, private readonly graceMs = DELETION_GRACE_MS) {
    this.queue = new WorkQueue(clock);
    const enqueue = (ns: KubeObject) => {
      if (ns.metadata.deletionTimestamp) this.queue.addAfter(ns.metadata.name!, this.graceMs);
    };
    namespaces.addHandlers({ add: enqueue, update: enqueue });
  }

  run(workers = 10): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  /** ServerPreferredNamespacedResources: the preferred version of every group, namespaced, listable and deletable. */
  async discover(errors: string[]): Promise<Discovered[]> {
    const out: Discovered[] = [];
    const versions: { group: string; version: string; path: string }[] = [{ group: '', version: 'v1', path: '/api/v1' }];
    const groups = await this.api.request('GET', '/apis');
    for (const g of groups.groups ?? []) {
      const v = g.preferredVersion?.version ?? g.versions?.[0]?.version;
      if (v) versions.push({ group: g.name, version: v, path: `/apis/${g.name}/${v}` });
    }
    for (const gv of versions) {
      try {
        const list = await this.api.request('GET', gv.path);
        for (const r of list.resources ?? []) {
          if (!r.namespaced || r.name.includes('/') || !r.verbs?.includes('delete') || !r.verbs?.includes('list')) continue;
          out.push({ group: gv.group, version: gv.version, resource: r.name, deleteCollection: r.verbs.includes('deletecollection') });
        }
      } catch (e) {
        errors.push(`${gv.group ? `${gv.group}/` : ''}${gv.version}: ${(e as Error).message}`);
      }
    }
    return out;
  }

  async sync(name: string): Promise<void> {
    const ns = this.namespaces.get(name);
    if (!ns || !ns.metadata.deletionTimestamp) return;
    const specFinalizers = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers) ?? [];
    if (!specFinalizers.includes(FINALIZER)) return;
    const discoveryErrors: string[] = [];
    const deleteErrors: string[] = [];
    const remaining = new Map<string, number>();
    const finalizers = new Map<string, number>();
    let estimateSeconds = 0;
    const types = await this.discover(discoveryErrors);
    for (const t of types) {
      const base = `${t.group ? `/apis/${t.group}` : '/api'}/${t.version}/namespaces/${encodeURIComponent(name)}/${t.resource}`;
      try {
        if (t.deleteCollection) {
          await this.api.request('DELETE', base, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
        }
        const left = await this.api.request('GET', base);
        let items = (left.items ?? []) as KubeObject[];
        if (!t.deleteCollection) {
          for (const o of items.filter((x) => !x.metadata.deletionTimestamp)) {
            await this.api.request('DELETE', `${base}/${encodeURIComponent(o.metadata.name!)}`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }).catch((e) => {
              if (!isNotFound(e)) throw e;
            });
          }
          items = ((await this.api.request('GET', base)).items ?? []) as KubeObject[];
        }
        if (items.length) remaining.set(groupResource(t), items.length);
        for (const o of items) {
          for (const f of (o.metadata.finalizers as string[] | undefined) ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
          if (t.resource === 'pods' && !t.group) {
            const grace = Number((o.spec as { terminationGracePeriodSeconds?: number } | undefined)?.terminationGracePeriodSeconds ?? 0);
            estimateSeconds = Math.max(estimateSeconds, grace);
          }
        }
      } catch (e) {
        if (isNotFound(e)) continue; // the type went away meanwhile (a CRD deleted)
        deleteErrors.push(`${groupResource(t)}: ${(e as Error).message}`);
      }
    }
    const conditions = terminatingConditions({ discoveryErrors, deleteErrors, remaining, finalizers });
    await this.writeConditions(ns, conditions);
    if (discoveryErrors.length || deleteErrors.length) throw new Error(`namespace ${name}: ${[...discoveryErrors, ...deleteErrors].join('; ')}`);
    if (remaining.size) {
      // namespace_controller.go: requeue after estimate/2 + 1 seconds.
      this.queue.addAfter(name, (Math.floor(estimateSeconds / 2) + 1) * 1000);
      return;
    }
    const current = await this.api.request('GET', `/api/v1/namespaces/${encodeURIComponent(name)}`).catch((e) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (!current) return;
    current.spec = { ...(current.spec ?? {}), finalizers: ((current.spec?.finalizers ?? []) as string[]).filter((f) => f !== FINALIZER) };
    await this.api.request('PUT', `/api/v1/namespaces/${encodeURIComponent(name)}/finalize`, current).catch((e) => {
      if (!isNotFound(e)) throw e;
    });
  }

  private async writeConditions(ns: KubeObject, conditions: Condition[]): Promise<void> {
    const status = (ns.status as { phase?: string; conditions?: Condition[] } | undefined) ?? {};
    const merged = mergeConditions(status.conditions, conditions, kubeTime(this.clock.now()));
    if (status.phase === 'Terminating' && JSON.stringify(merged) === JSON.stringify(status.conditions)) return;
    const next = { ...ns, status: { ...status, phase: 'Terminating', conditions: merged } };
    await this.api.request('PUT', `/api/v1/namespaces/${encodeURIComponent(ns.metadata.name!)}/status`, next).catch((e) => {
      if (!isNotFound(e) && (e as { code?: number }).code !== 409) throw e;
    });
  }
}
