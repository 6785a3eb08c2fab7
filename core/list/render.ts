// Canonical and caching layers: a page of objects as the wire body: a <Kind>List whose items are the
// stored JSON strings spliced in unparsed (serialize once), or a meta.k8s.io/v1 Table for kubectl get. A list
// through a view (core/views: events.k8s.io/v1, a CRD's other version) has each item's text rewritten, unparsed.

import { apiVersionOf, type ResourceType } from '../registry';
import type { Page } from './query';
import { toTable, type IncludeObject, type Table, type TableOptions } from '../tables/table';
import type { StateEntry } from '../object-state';
import { toTableIsolated, type RenderErrorSink } from '../tables/isolated';
import { viewFor, type ApiView } from '../views/view';

/** `view`: the apiVersion the list is answered in, when not the store's (core/views). */
export type ListFormat = ({ as: 'List' } | { as: 'Table'; includeObject: IncludeObject }) & { view?: string };

/**
 * A list body in parts: `open`, the `count` items' JSON comma-separated, `close`. Made without joining, so a caller
 * can send it piece by piece (list-pieces.ts) and never hold a list of 10,000 pods (~32 MB) as one string. Items
 * come from the page, read when the body was made: later writes never reach it (an entry's JSON never changes).
 */
export interface ListBody {
  readonly open: string;
  readonly count: number;
  /** The i-th item's JSON (through the request's view, converted as it is asked for). */
  item(i: number): string;
  readonly close: string;
}

/** `onRenderError`: an object whose Table row fell back to null cells (see table-isolated.ts). */
export function renderList(type: ResourceType, page: Page, resourceVersion: string, format: ListFormat, now: number, onRenderError: RenderErrorSink = logRenderError): string {
  return listText(renderListBody(type, page, resourceVersion, format, now, onRenderError));
}

export function renderListBody(type: ResourceType, page: Page, resourceVersion: string, format: ListFormat, now: number, onRenderError: RenderErrorSink = logRenderError): ListBody {
  const listMeta: { resourceVersion: string; continue?: string; remainingItemCount?: number } = { resourceVersion };
  if (page.continue) listMeta.continue = page.continue;
  if (page.remainingItemCount !== undefined) listMeta.remainingItemCount = page.remainingItemCount;
  const view = viewFor(type, format.view);
  if (format.as === 'Table') return tableBody(type, page.items, { includeObject: format.includeObject, now, listMeta }, view, onRenderError);
  const head = JSON.stringify({ kind: `${type.kind}List`, apiVersion: view?.apiVersion ?? apiVersionOf(type), metadata: listMeta });
  const items = page.items;
  return {
    open: `${head.slice(0, -1)},"items":[`,
    count: items.length,
    item: view ? (i) => view.json(items[i].json) : (i) => items[i].json,
    close: ']}',
  };
}

/**
 * How many objects a Table's rows are made from at a time. A Table of 10,000 pods made at once parsed ~32 MB of
 * objects into one live graph and serialized ~18 MB in one turn: 0.8-2.0 s with the isolate held (Node, load ~9;
 * a CPU profile of it: more than half collecting that graph). In batches the objects die young and the rows are
 * made as their pieces are sent, other requests running in between: the same Table in 1.1-1.2 s, no turn longer than
 * ~80-115 ms with batches of 256 (so 100: ~40 ms).
 */
const TABLE_BATCH = 100;

/**
 * A Table as a ListBody: its header (kind, metadata, columnDefinitions) then one item per row, the rows made
 * `TABLE_BATCH` objects at a time as they are asked for, in order. The same bytes as the whole Table serialized at
 * once (a Table's JSON is its header with `"rows":[...]` last; a view converts rows one by one).
 */
function tableBody(type: ResourceType, items: readonly StateEntry[], opts: TableOptions, view: ApiView | undefined, onRenderError: RenderErrorSink): ListBody {
  const header = JSON.stringify(view ? view.fromStorage(toTable(type, [], opts)) : toTable(type, [], opts));
  if (!header.endsWith('"rows":[]}')) throw new Error(`a Table's rows are not its last member: ${header.slice(-40)}`);
  let from = 0;
  let rows: string[] = [];
  return {
    open: header.slice(0, -2),
    count: items.length,
    item(i) {
      if (i < from || i >= from + rows.length) {
        const objects = items.slice(i, i + TABLE_BATCH).map((e) => JSON.parse(e.json) as object);
        const table = toTableIsolated(type, objects, { ...opts, noHeaders: true }, onRenderError);
        rows = ((view ? view.fromStorage(table) : table) as Table).rows.map((r) => JSON.stringify(r));
        from = i;
      }
      return rows[i - from];
    },
    close: ']}',
  };
}

/** The whole body as one string (small lists, tests). */
export function listText(body: ListBody): string {
  const parts = new Array<string>(body.count);
  for (let i = 0; i < body.count; i++) parts[i] = body.item(i);
  return `${body.open}${parts.join(',')}${body.close}`;
}

export function logRenderError(object: object, error: unknown): void {
  const meta = (object as { metadata?: { namespace?: string; name?: string } }).metadata;
  console.error(`table row for ${meta?.namespace ? `${meta.namespace}/` : ''}${meta?.name ?? '?'} fell back: ${String(error)}`);
}
