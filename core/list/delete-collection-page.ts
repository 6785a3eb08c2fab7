// Canonical layer: one page of a deletecollection. kube-apiserver's DeleteCollection lists the collection and
// deletes item by item (registry/generic/registry/store.go), not in one transaction; here the store deletes a
// page per call, each page its own transaction and bounded in bytes and items, so no call holds the store long,
// no reply outgrows one RPC message (32 MiB), and the front door streams the pages out as one List.

import type { StateEntry } from '../object-state';
import type { ParsedSelectors } from './options';
import { matches } from './query';

export const DELETE_PAGE_LIMITS = {
  bytes: 2 * 1024 * 1024, // the page's matching objects, as stored; one object may take it past (1.5 MiB at most)
  items: 500, // objects deleted per page: each is a commit
  scanned: 10_000, // entries looked at per page, matching or not (selectors read the entry, not the object)
};

export interface PickedPage {
  keys: string[];
  /** Where the next page starts (the last key looked at); absent when no key remains. */
  continue?: string;
}

/** The keys of the next page: entries in key order matching `selectors`, until a limit; the cursor after them. */
export function pickDeletePage(entries: Iterable<StateEntry>, selectors: ParsedSelectors, limits = DELETE_PAGE_LIMITS): PickedPage {
  const keys: string[] = [];
  let bytes = 0;
  let scanned = 0;
  let last: string | undefined;
  for (const e of entries) {
    if (scanned >= limits.scanned || keys.length >= limits.items || (keys.length > 0 && bytes >= limits.bytes)) return { keys, continue: last };
    scanned++;
    last = e.key;
    if (!matches(e, selectors)) continue;
    keys.push(e.key);
    bytes += e.json.length;
  }
  return { keys };
}
