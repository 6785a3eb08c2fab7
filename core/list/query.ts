// Canonical and caching layers: one page of a LIST over entries in key order: selectors, limit,
// continue token and remainingItemCount, with apiserver's etcd3 store semantics.

import type { StateEntry } from '../object-state';
import type { ParsedSelectors } from './options';
import { matchesLabels } from '../selectors/label-selector';
import { matchesFields } from '../selectors/field-selector';
import { encodeContinue } from './continue-token';

export interface Page {
  items: StateEntry[];
  continue?: string;
  remainingItemCount?: number;
}

export interface PageRequest {
  selectors: ParsedSelectors;
  hasSelectors: boolean;
  limit: number; // 0 = all
  revision: number; // the list's resourceVersion, written into the continue token
}

/**
 * Collects matching entries until `limit`; a continue token is given whenever keys remain after the
 * page, even if none of them match (etcd3 store.go: "hasMore" is about keys, not matches).
 */
export function readPage(entries: Iterable<StateEntry>, req: PageRequest, countRemaining: (afterKey: string) => number): Page {
  const items: StateEntry[] = [];
  let last: StateEntry | undefined;
  let more = false;
  for (const e of entries) {
    if (req.limit > 0 && items.length >= req.limit) {
      more = true;
      break;
    }
    last = e;
    if (matches(e, req.selectors)) items.push(e);
  }
  if (!more || !last) return { items };
  const start = last.key + '\u0000';
  const page: Page = { items, continue: encodeContinue(req.revision, start) };
  // apiserver storage/util.go PrepareContinueToken: only when no selector filters the count.
  if (!req.hasSelectors) page.remainingItemCount = countRemaining(start);
  return page;
}

export function matches(e: StateEntry, sel: ParsedSelectors): boolean {
  return matchesLabels(sel.labels, e.labels) && matchesFields(sel.fields, e.fields);
}

/**
 * The state at an older revision, for continue tokens and Exact lists: current entries, overridden by
 * each key's value before its first change after that revision (null: the key did not exist then).
 */
export function* entriesAt(current: Iterable<StateEntry>, overrides: Map<string, StateEntry | null>): Generator<StateEntry> {
  const pending = [...overrides.keys()].sort();
  let i = 0;
  for (const e of current) {
    while (i < pending.length && pending[i] < e.key) {
      const old = overrides.get(pending[i++]);
      if (old) yield old;
    }
    if (i < pending.length && pending[i] === e.key) {
      const old = overrides.get(pending[i++]);
      if (old) yield old;
      continue;
    }
    yield e;
  }
  while (i < pending.length) {
    const old = overrides.get(pending[i++]);
    if (old) yield old;
  }
}
