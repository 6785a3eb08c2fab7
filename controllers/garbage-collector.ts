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
  deletingDependents: boolean; // deleted with the foregroundDeletion finalizer (kube's node.deletingDependents)
  orphaning: boolean; // deleted with the orphan finalizer
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
    const finalizers = (obj.metadata.finalizers ?? []) as string[];
    const deleting = !!obj.metadata.deletionTimestamp;
    const node: Node = {
      uid, type, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name!, owners,
      dependents: prior?.dependents ?? this.waitingDependents.get(uid) ?? new Set(),
      deletingDependents: deleting && finalizers.includes(FOREGROUND),
      orphaning: deleting && finalizers.includes(ORPHAN),
    };
    this.waitingDependents.delete(uid);
    this.nodes.set(uid, node);
    const before = new Map((prior?.owners ?? []).map((o) => [o.uid, o]));
    const after = new Set(owners.map((o) => o.uid));
    for (const [o, ref] of before) {
      if (after.has(o)) continue;
      this.unlink(o, uid);
      // addUnblockedOwnersToDeleteQueue: a foreground-deleting owner may have lost its last blocking dependent.
      if (ref.blockOwnerDeletion && this.nodes.has(o)) this.attemptToDelete.add(o);
    }
    for (const o of owners) {
      const was = before.get(o.uid);
      if (was) {
        if (was.blockOwnerDeletion && !o.blockOwnerDeletion && this.nodes.has(o.uid)) this.attemptToDelete.add(o.uid);
        continue;
      }
      const owner = this.nodes.get(o.uid);
      if (owner) {
        owner.dependents.add(uid);
        if (owner.deletingDependents) this.attemptToDelete.add(uid); // a late dependent of an owner already waiting
      } else {
        let set = this.waitingDependents.get(o.uid);
        if (!set) this.waitingDependents.set(o.uid, (set = new Set()));
        set.add(uid);
        this.attemptToDelete.add(uid); // an owner nobody has seen: verify it
      }
    }
    // processTransitions: only the change into a deleting state queues work, so an object that stays stuck
    // with its finalizer (one that owns itself) is not looked at again on every update.
    if (node.orphaning && !prior?.orphaning) this.attemptToOrphan.add(uid);
    if (node.deletingDependents && !prior?.deletingDependents) {
      this.attemptToDelete.add(uid);
      for (const dep of node.dependents) this.attemptToDelete.add(dep);
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
      if (this.nodes.get(o.uid)?.deletingDependents) this.attemptToDelete.add(o.uid);
    }
    for (const dep of node.dependents) {
      if (dep === node.uid) continue; // it owned itself
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
      return this.processDeletingDependents(node, obj);
    }
    const owners = await Promise.all(node.owners.map(async (o) => ({ uid: o.uid, state: await this.ownerState(node.namespace, o) })));
    const action = gcDecision(owners, node.dependents.size > 0, finalizers);
    if (action.kind === 'removeRefs') {
      await this.d.api.patch(node.type.ref, node.namespace, node.name, 'strategic', {
        metadata: { ownerReferences: action.uids.map((u) => ({ $patch: 'delete', uid: u })), uid },
      }).catch(ignoreGone);
    } else if (action.kind === 'delete') {
      // attemptToDeleteItem: an owner waits for this object, which is to go in the foreground too; if one of its
      // own dependents is already waiting for its dependents (an ownership cycle), its references stop blocking
      // first, so the waiting owner can finish and the cycle comes apart.
      if (action.policy === 'Foreground' && owners.some((o) => o.state === 'waiting')
        && [...node.dependents].some((d) => this.nodes.get(d)?.deletingDependents)) {
        await this.unblockOwnerReferences(node);
      }
      await this.d.api.delete(node.type.ref, node.namespace, node.name, { propagationPolicy: action.policy, preconditions: { uid } }).catch(ignoreGone);
    }
  }

  /**
   * processDeletingDependentsItem: the foregroundDeletion finalizer comes off once no dependent blocks; until
   * then the blocking dependents are (re)considered for deletion — except those waiting for their own
   * dependents, which come back when they change. An object that blocks its own deletion (it owns itself)
   * therefore stays with its finalizer, as on kube, instead of being re-queued for ever.
   */
  private async processDeletingDependents(node: Node, obj: KubeObject): Promise<void> {
    const blocking = [...node.dependents].map((dep) => this.nodes.get(dep))
      .filter((d): d is Node => !!d && d.owners.some((o) => o.uid === node.uid && o.blockOwnerDeletion));
    if (blocking.length === 0) {
      await this.removeFinalizer(node, obj, FOREGROUND);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.attemptToDelete.add(dep.uid);
  }

  /** unblockOwnerReferencesStrategicMergePatch: every blocking reference of `node` set to blockOwnerDeletion: false. */
  private async unblockOwnerReferences(node: Node): Promise<void> {
    const refs = node.owners.filter((o) => o.blockOwnerDeletion).map((o) => ({ ...o, blockOwnerDeletion: false }));
    if (refs.length === 0) return;
    await this.d.api.patch(node.type.ref, node.namespace, node.name, 'strategic', { metadata: { ownerReferences: refs, uid: node.uid } }).catch(ignoreGone);
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
