// Canonical and caching layers: one LIST, served wherever the state is — the canonical store, which also
// serves older states (exact reads, continued pages) from its log, or a watch-cache replica, which serves the
// latest state once it is fresh enough. The pipeline is the same: parse the options, plan the read, wait
// (bounded) until the state is there, read one page, render it. The Durable Objects only supply a ListSource.

import type { ResourceType } from '../registry';
import type { ObjectState, StateEntry } from '../object-state';
import { namespacePrefix } from '../object-key';
import { formatRevision } from '../revision';
import { StatusError, tooLargeResourceVersion } from '../status';
import type { RenderErrorSink } from '../tables/isolated';
import { parseListOptions, parseSelectors } from './options';
import { planList } from './plan';
import { entriesAt, readPage } from './query';
import { listText, renderListBody, type ListBody, type ListFormat } from './render';

export interface ListSource {
  readonly type: ResourceType;
  readonly state: ObjectState;
  /** The revision `state` reflects. */
  revision(): number;
  /** History at or below this is gone: exact reads and continued pages from before it answer 410. */
  compacted(): number;
  /** Waits (bounded, apiserver's blockTimeout) until `revision` is reached; false if it was not in time. */
  reached(revision: number): Promise<boolean>;
  /**
   * The canonical store's history: per key kept, its stored JSON just before its first change after
   * `revision` (null: it did not exist then). Absent at a replica, which serves the latest state only.
   */
  valuesBefore?(revision: number, keep: (key: string) => boolean): Map<string, string | null>;
  /** A state entry for a value from history. */
  entry(key: string, json: string): StateEntry;
  /**
   * The revision a consistent read (resourceVersion unset) must reflect, when the source may lag behind
   * the store (a replica: the store's newest, KEP-2340). Absent at the store, whose latest state is consistent.
   */
  consistentRevision?(): Promise<number>;
  readonly onRenderError: RenderErrorSink;
}

export interface ListQuery {
  namespace: string;
  query: string; // the URL's search string
  format: ListFormat;
}

/**
 * The list body, or undefined when this source cannot serve a consistent read yet (a replica that has not
 * reached the store's revision within the wait: the caller asks the store instead).
 */
export async function serveList(source: ListSource, req: ListQuery, now: number): Promise<string | undefined> {
  const body = await serveListBody(source, req, now);
  return body && listText(body);
}

/**
 * `serveList`'s body in parts (render.ts ListBody), for streaming (list-pieces.ts): the page is read when this
 * resolves; its items are converted as their pieces are made.
 */
export async function serveListBody(source: ListSource, req: ListQuery, now: number): Promise<ListBody | undefined> {
  const { type } = source;
  const opts = parseListOptions(new URLSearchParams(req.query), false);
  const selectors = parseSelectors(opts, type);
  const plan = planList(opts, source.compacted());
  // The front door sends exact reads and continued pages to the store alone (worker/replicas.ts servableByReplica).
  if (plan.revision !== 'latest' && !source.valuesBefore) throw new Error('replicas serve only lists of the latest state');
  if (opts.resourceVersion === '' && source.consistentRevision) {
    if (!(await source.reached(await source.consistentRevision()))) return undefined;
  }
  // Never an older state as if it were newer: wait (bounded) until the source has reached it, else 504.
  const wanted = typeof plan.revision === 'number' ? Math.max(plan.revision, plan.minRevision) : plan.minRevision;
  if (!(await source.reached(wanted))) throw new StatusError(tooLargeResourceVersion(wanted, source.revision(), 1));
  const revision = plan.revision === 'latest' ? source.revision() : plan.revision;
  const prefix = namespacePrefix(req.namespace);
  const page = readPage(entriesAtRevision(source, prefix, plan.start, revision), {
    selectors, hasSelectors: opts.labelSelector !== '' || opts.fieldSelector !== '', limit: plan.limit, revision,
  }, (after) => source.state.countFrom(prefix, after));
  return renderListBody(type, page, formatRevision(revision), req.format, now, source.onRenderError);
}

/** Entries from `start` under `prefix` as they were at `revision`: the current state with later changes undone. */
function entriesAtRevision(source: ListSource, prefix: string, start: string, revision: number): Iterable<StateEntry> {
  const current = source.state.range(prefix, start);
  if (revision >= source.revision() || !source.valuesBefore) return current;
  const before = source.valuesBefore(revision, (key) => key.startsWith(prefix) && key >= start);
  const overrides = new Map<string, StateEntry | null>();
  for (const [key, value] of before) overrides.set(key, value === null ? null : source.entry(key, value));
  return entriesAt(current, overrides);
}
