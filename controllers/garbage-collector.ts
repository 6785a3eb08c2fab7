// Controllers: the garbage collector (kubernetes pkg/controller/garbagecollector). A graph of
// ownerReferences fed by the shared informers of every collected type: when an owner goes, its dependents
// are deleted (Background) unless another owner still holds them; an owner deleted with the
// `foregroundDeletion` finalizer waits until its blocking dependents are gone; one deleted with `orphan`
// has its ownerReferences stripped from every dependent first. Owners not in the graph (another type,
// or gone while the manager was down) are looked up live before anything is deleted.

import type { KubeObject } from '../client/types';
import { ApiError } from '../client/types';
import { isNotFound, type Api, type ResourceRef } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { ownerRefs, type OwnerReference } from './owner-refs';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'garbage-collector-controller';
const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';

export interface Collected {
  ref: ResourceRef;
  kind: string;
  apiVersion: string;
  informer: SharedInformer;
}

interface Node {
  uid: string;
  type: Collected;
  namespace: string;
  name: string;
  owners: OwnerReference[];
  dependents: Set<string>;
}

export type OwnerState = 'solid' | 'dangling' | 'waiting';

export type GcAction =
  | { kind: 'none' }
  | { kind: 'removeRefs'; uids: string[] }
  | { kind: 'delete'; policy: 'Background' | 'Foreground' | 'Orphan' };

/**
 * attemptToDeleteItem's decision for one dependent: with any solid owner it only drops references to
 * dangling and waiting owners; with none, it is deleted — in the foreground when an owner waits for it and
 * it has dependents itself, else with the policy its own finalizers ask for, else in the background.
 */
export function gcDecision(owners: { uid: string; state: OwnerState }[], hasDependents: boolean, finalizers: string[]): GcAction {
  if (owners.length === 0) return { kind: 'none' };
  const solid = owners.filter((o) => o.state === 'solid');
  const stale = owners.filter((o) => o.state !== 'solid');
  if (solid.length > 0) return stale.length ? { kind: 'removeRefs', uids: stale.map((o) => o.uid) } : { kind: 'none' };
  if (owners.some((o) => o.state === 'waiting') && hasDependents) return { kind: 'delete', policy: 'Foreground' };
  if (finalizers.includes(ORPHAN)) return { kind: 'delete', policy: 'Orphan' };
  if (finalizers.includes(FOREGROUND)) return { kind: 'delete', policy: 'Foreground' };
  return { kind: 'delete', policy: 'Background' };
}

export interface GcDeps {
  api: Api;
  types: Collected[];
  clock: Clock;
  resolve: (apiVersion: string, kind: string) => ResourceRef | undefined; // any kind, for owners not collected here
}

export class GarbageCollector {
  readonly attemptToDelete: WorkQueue;
  readonly attemptToOrphan: WorkQueue;
  private readonly nodes = new Map<string, Node>();
  private readonly waitingDependents = new Map<string, Set<string>>(); // owner uid not (yet) in the graph → dependents

  constructor(private readonly d: GcDeps) {
    this.attemptToDelete = new WorkQueue(d.clock);
    this.attemptToOrphan = new WorkQueue(d.clock);
    for (const t of d.types) {
      t.informer.addHandlers({ add: (o) => this.upsert(t, o), update: (o) => this.upsert(t, o), delete: (o) => this.remove(o) });
    }
  }

  run(workers = 5): Promise<void>[] {
    const onError = logSyncError(COMPONENT);
    return [
      ...Array.from({ length: workers }, () => runWorker(this.attemptToDelete, (uid) => this.processDelete(uid), { onError })),
      runWorker(this.attemptToOrphan, (uid) => this.processOrphan(uid), { onError }),
    ];
  }

  /** The dependents of `uid` in the graph (tests, status). */
  dependentsOf(uid: string): string[] {
    return [...(this.nodes.get(uid)?.dependents ?? this.waitingDependents.get(uid) ?? [])];
  }

  private upsert(type: Collected, obj: KubeObject): void {
    const uid = obj.metadata.uid as string | undefined;
    if (!uid) return;
    const prior = this.nodes.get(uid);
    const owners = ownerRefs(obj);
    const node: Node = {
      uid, type, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name!, owners,
      dependents: prior?.dependents ?? this.waitingDependents.get(uid) ?? new Set(),
    };
    this.waitingDependents.delete(uid);
    this.nodes.set(uid, node);
    const before = new Set((prior?.owners ?? []).map((o) => o.uid));
    const after = new Set(owners.map((o) => o.uid));
    for (const o of before) if (!after.has(o)) this.unlink(o, uid);
    for (const o of owners) {
      if (before.has(o.uid)) continue;
      const owner = this.nodes.get(o.uid);
      if (owner) owner.dependents.add(uid);
      else {
        let set = this.waitingDependents.get(o.uid);
        if (!set) this.waitingDependents.set(o.uid, (set = new Set()));
        set.add(uid);
        this.attemptToDelete.add(uid); // an owner nobody has seen: verify it
      }
    }
    const finalizers = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp) {
      if ((finalizers as string[]).includes(ORPHAN)) this.attemptToOrphan.add(uid);
      if ((finalizers as string[]).includes(FOREGROUND)) {
        this.attemptToDelete.add(uid);
        for (const dep of node.dependents) this.attemptToDelete.add(dep);
      }
    }
    // An owner reference to a foreground-deleting owner that went away, or a changed owner set: look again.
    if (prior && (before.size !== after.size || [...after].some((o) => !before.has(o)))) this.attemptToDelete.add(uid);
  }

  private unlink(ownerUid: string, dependent: string): void {
    this.nodes.get(ownerUid)?.dependents.delete(dependent);
    const waiting = this.waitingDependents.get(ownerUid);
    waiting?.delete(dependent);
    if (waiting?.size === 0) this.waitingDependents.delete(ownerUid);
  }

  private remove(obj: KubeObject): void {
    const uid = obj.metadata.uid as string | undefined;
    const node = uid ? this.nodes.get(uid) : undefined;
    if (!node) return;
    this.nodes.delete(node.uid);
    for (const o of node.owners) {
      this.unlink(o.uid, node.uid);
      // A foreground-deleting owner may now be free of blocking dependents.
      if (this.nodes.has(o.uid)) this.attemptToDelete.add(o.uid);
    }
    for (const dep of node.dependents) {
      this.attemptToDelete.add(dep);
      // The dependents now point at a missing owner: keep them findable.
      let set = this.waitingDependents.get(node.uid);
      if (!set) this.waitingDependents.set(node.uid, (set = new Set()));
      set.add(dep);
    }
  }

  private current(node: Node): KubeObject | undefined {
    const key = node.namespace ? `${node.namespace}/${node.name}` : node.name;
    const obj = node.type.informer.get(key);
    return obj && obj.metadata.uid === node.uid ? obj : undefined;
  }

  /** Classifies an owner reference: gone or replaced (dangling), deleting in the foreground (waiting), or there. */
  private async ownerState(namespace: string, ref: OwnerReference): Promise<OwnerState> {
    const known = this.nodes.get(ref.uid);
    let owner: KubeObject | undefined = known ? this.current(known) : undefined;
    if (!owner) {
      const type = this.d.resolve(ref.apiVersion, ref.kind);
      if (!type) return 'solid'; // a kind this gateway does not serve: never delete on its account
      try {
        owner = await this.d.api.get(type, type.namespaced ? namespace : '', ref.name);
      } catch (e) {
        if (isNotFound(e)) return 'dangling';
        throw e;
      }
      if (owner.metadata.uid !== ref.uid) return 'dangling';
    }
    const deleting = !!owner.metadata.deletionTimestamp && ((owner.metadata.finalizers ?? []) as string[]).includes(FOREGROUND);
    return deleting ? 'waiting' : 'solid';
  }

  private async processDelete(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node) return;
    const obj = this.current(node);
    if (!obj) return;
    const finalizers = (obj.metadata.finalizers ?? []) as string[];
    if (obj.metadata.deletionTimestamp) {
      if (!finalizers.includes(FOREGROUND)) return;
      // processDeletingDependentsItem: done once no dependent blocks the owner's deletion.
      const blocking = [...node.dependents].filter((dep) => {
        const depNode = this.nodes.get(dep);
        return depNode?.owners.some((o) => o.uid === uid && o.blockOwnerDeletion);
      });
      if (blocking.length === 0) {
        await this.removeFinalizer(node, obj, FOREGROUND);
        return;
      }
      for (const dep of blocking) this.attemptToDelete.add(dep);
      return;
    }
    const owners = await Promise.all(node.owners.map(async (o) => ({ uid: o.uid, state: await this.ownerState(node.namespace, o) })));
    const action = gcDecision(owners, node.dependents.size > 0, finalizers);
    if (action.kind === 'removeRefs') {
      await this.d.api.patch(node.type.ref, node.namespace, node.name, 'strategic', {
        metadata: { ownerReferences: action.uids.map((u) => ({ $patch: 'delete', uid: u })), uid },
      }).catch(ignoreGone);
    } else if (action.kind === 'delete') {
      await this.d.api.delete(node.type.ref, node.namespace, node.name, { propagationPolicy: action.policy, preconditions: { uid } }).catch(ignoreGone);
    }
  }

  /** orphanDependents, then the `orphan` finalizer comes off the owner. */
  private async processOrphan(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node) return;
    const obj = this.current(node);
    if (!obj || !((obj.metadata.finalizers ?? []) as string[]).includes(ORPHAN)) return;
    await Promise.all([...node.dependents].map(async (dep) => {
      const d = this.nodes.get(dep);
      if (!d) return;
      await this.d.api.patch(d.type.ref, d.namespace, d.name, 'strategic', {
        metadata: { ownerReferences: [{ $patch: 'delete', uid }], uid: dep },
      }).catch(ignoreGone);
    }));
    await this.removeFinalizer(node, obj, ORPHAN);
  }

  private async removeFinalizer(node: Node, obj: KubeObject, finalizer: string): Promise<void> {
    const rest = ((obj.metadata.finalizers ?? []) as string[]).filter((f) => f !== finalizer);
    await this.d.api.patch(node.type.ref, node.namespace, node.name, 'merge', {
      metadata: { finalizers: rest.length ? rest : null, resourceVersion: obj.metadata.resourceVersion },
    }).catch(ignoreGone);
  }
}

// 404: already gone; 409: changed meanwhile (the informer brings the new state and the item is queued again);
// 422: the uid precondition of a patch failed (recreated under the same name).
function ignoreGone(e: unknown): void {
  if (e instanceof ApiError && (e.code === 404 || e.code === 422)) return;
  throw e;
}
