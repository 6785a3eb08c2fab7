// Core: how an isolate (a Worker front door, a store or a replica) keeps the CRD-defined types of the
// registry current without a round trip per request: it remembers the CRD store's revision it last
// loaded, and at most once per `maxAgeMs` asks the store for its revision (one small call), listing the
// CRDs only when that changed. `minRevision` (a revision the caller knows exists, e.g. the front door's
// when it forwards a request) forces the check. No promise is shared between requests: Workers do not
// allow one request to wait on another's I/O.

import { setCustomTypes } from '../registry';
import type { Crd } from './crd-object';
import { typesFromCrds } from './crd-types';

export interface CrdSource {
  revision(): Promise<number>;
  list(): Promise<{ revision: number; items: Crd[] }>;
}

let loaded = -1;
let checkedAt = Number.NEGATIVE_INFINITY;

/** The CRD store revision this isolate's registry reflects (-1 before the first load). */
export function knownCrdRevision(): number {
  return loaded;
}

export async function syncCustomTypes(source: CrdSource, o: { now: number; maxAgeMs: number; minRevision?: number }): Promise<void> {
  const fresh = o.now - checkedAt < o.maxAgeMs;
  if (fresh && (o.minRevision === undefined || loaded >= o.minRevision)) return;
  const revision = await source.revision();
  if (revision !== loaded) {
    const list = await source.list();
    if (list.revision >= loaded) {
      setCustomTypes(typesFromCrds(list.items));
      loaded = list.revision;
    }
  }
  checkedAt = Math.max(checkedAt, o.now);
}

/** Applies a CRD list this isolate already holds (e.g. right after its own CRD write). */
export function adoptCrdList(revision: number, items: Crd[], now: number): void {
  if (revision < loaded) return;
  setCustomTypes(typesFromCrds(items));
  loaded = revision;
  checkedAt = now;
}

/** Test hook: forget what was loaded. */
export function resetCustomTypeSync(): void {
  loaded = -1;
  checkedAt = Number.NEGATIVE_INFINITY;
  setCustomTypes([]);
}
