// Core: how an isolate (a Worker front door, a store or a replica) keeps the CRD-defined types of its registry
// current without a round trip per request. It follows the CRD store's log (core/follow/store-follower.ts) by
// pulling, since an isolate has no address a store could push to: one list, then at most once per `maxAgeMs`
// a read of the log after the revision it holds — one small call when nothing changed — applying only the CRDs
// that changed, and a list again if the log was compacted past it. `minRevision` (a revision the caller knows
// exists, e.g. the front door's when it forwards a request) forces the read. No promise is shared between
// requests: Workers do not allow one request to wait on another's I/O, so each caller reads for itself and the
// follower's position keeps their answers in order.

import type { ResourceType } from '../registry';
import type { Crd } from './crd-object';
import { typesFromCrd } from './crd-types';
import type { ChangeRow, Snapshot } from '../follow/change-log';
import { StoreFollower, type FollowedStore, type FollowerSink } from '../follow/store-follower';

export interface SyncOptions {
  now: number;
  maxAgeMs: number;
  minRevision?: number;
}

export class CustomTypeFollower {
  private checkedAt = Number.NEGATIVE_INFINITY;
  private store: FollowedStore | undefined;
  private readonly follower: StoreFollower;

  /** `publish`: where the types go (the registry's setCustomTypes), every time they change. */
  constructor(publish: (types: readonly ResourceType[]) => void) {
    const store: FollowedStore = {
      listPage: (token) => this.store!.listPage(token),
      readLog: (after) => this.store!.readLog(after),
    };
    this.follower = new StoreFollower(store, new CrdTypes(publish), { shared: false });
  }

  /** The CRD store revision the registry reflects (-1 before the first load). */
  get revision(): number {
    return this.follower.position.revision;
  }

  /** Brings the types up to date when they are older than `maxAgeMs`, or than `minRevision`. */
  async sync(store: FollowedStore, o: SyncOptions): Promise<void> {
    const fresh = o.now - this.checkedAt < o.maxAgeMs;
    if (fresh && (o.minRevision === undefined || this.revision >= o.minRevision)) return;
    this.store = store; // a source per caller (a Worker's stub belongs to its request); any of them reads the same store
    await this.follower.refresh();
    this.checkedAt = Math.max(this.checkedAt, o.now);
  }
}

/** The follower's sink: each CRD's types, derived once per change to it, published in CRD-name order. */
class CrdTypes implements FollowerSink {
  private readonly byCrd = new Map<string, ResourceType[]>();

  constructor(private readonly publish: (types: readonly ResourceType[]) => void) {}

  load(snapshot: Snapshot): void {
    this.byCrd.clear();
    for (const item of snapshot.items) this.byCrd.set(item.key, typesFromCrd(item.object as Crd));
    this.reached();
  }

  apply(row: ChangeRow): void {
    if (row.type === 'DELETED') this.byCrd.delete(row.key);
    else this.byCrd.set(row.key, typesFromCrd(JSON.parse(row.value) as Crd));
  }

  /** The order a list has (key order), whatever order the changes came in. */
  reached(): void {
    const keys = [...this.byCrd.keys()].sort();
    this.publish(keys.flatMap((k) => this.byCrd.get(k)!));
  }
}
