// Canonical and caching layers: a page of objects as the wire body: a <Kind>List whose items are the
// stored JSON strings spliced in unparsed (serialize once), or a meta.k8s.io/v1 Table for kubectl get. A list
// through a view (core/views: events.k8s.io/v1, a CRD's other version) has each item's text rewritten, unparsed.

import { apiVersionOf, type ResourceType } from '../registry';
import type { Page } from './query';
import type { IncludeObject } from '../tables/table';
import { toTableIsolated, type RenderErrorSink } from '../tables/isolated';
import { viewFor } from '../views/view';

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
  if (format.as === 'Table') {
    const objects = page.items.map((e) => JSON.parse(e.json));
    const table = toTableIsolated(type, objects, { includeObject: format.includeObject, now, listMeta }, onRenderError);
    return { open: JSON.stringify(view ? view.fromStorage(table) : table), count: 0, item: () => '', close: '' };
  }
  const head = JSON.stringify({ kind: `${type.kind}List`, apiVersion: view?.apiVersion ?? apiVersionOf(type), metadata: listMeta });
  const items = page.items;
  return {
    open: `${head.slice(0, -1)},"items":[`,
    count: items.length,
    item: view ? (i) => view.json(items[i].json) : (i) => items[i].json,
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
