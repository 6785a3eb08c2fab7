// Canonical and caching layers: which state a LIST reads, from its resourceVersion, resourceVersionMatch,
// limit and continue (the table in apiserver's api-concepts docs, and etcd3 store.go GetList).

import type { ListOptions } from './options';
import { badRequest, resourceExpired, StatusError } from '../status';
import { decodeContinue, encodeContinue, InvalidContinueToken } from './continue-token';

export interface ListPlan {
  // 'latest': the newest state; a number: exactly the state at that revision.
  revision: number | 'latest';
  // NotOlderThan: the state must be at least this new (wait for it, bounded).
  minRevision: number;
  start: string; // first key to consider
  limit: number;
}

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of the ' +
  'results. Continuing with the provided token results in an inconsistent list - objects that were created, ' +
  'modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export const LIST_TOO_OLD = 'The resourceVersion for the provided list is too old.';

export function planList(opts: ListOptions, compacted: number): ListPlan {
  if (opts.continue) {
    if (opts.resourceVersion && opts.resourceVersion !== '0') {
      throw new StatusError(badRequest('specifying resource version is not allowed when using continue'));
    }
    let token: { rv: number; start: string };
    try {
      token = decodeContinue(opts.continue);
    } catch (e) {
      if (e instanceof InvalidContinueToken) throw new StatusError(badRequest(e.message));
      throw e;
    }
    if (token.rv < 0) return { revision: 'latest', minRevision: 0, start: token.start, limit: opts.limit };
    if (token.rv < compacted) {
      throw new StatusError(resourceExpired(CONTINUE_EXPIRED, encodeContinue(-1, token.start)));
    }
    return { revision: token.rv, minRevision: 0, start: token.start, limit: opts.limit };
  }
  const rv = opts.resourceVersion;
  const exact = opts.resourceVersionMatch === 'Exact' ||
    (opts.resourceVersionMatch === '' && opts.limit > 0 && rv !== '' && rv !== '0');
  if (exact) {
    if (opts.revision < compacted) throw new StatusError(resourceExpired(LIST_TOO_OLD));
    return { revision: opts.revision, minRevision: opts.revision, start: '', limit: opts.limit };
  }
  if (rv === '') return { revision: 'latest', minRevision: 0, start: '', limit: opts.limit };
  // RV "0" or NotOlderThan: served from the cache, which ignores limit for "0" (cacher.go computeListLimit).
  return { revision: 'latest', minRevision: opts.revision, start: '', limit: rv === '0' ? 0 : opts.limit };
}
