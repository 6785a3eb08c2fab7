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

/** `onRenderError`: an object whose Table row fell back to null cells (see table-isolated.ts). */
export function renderList(type: ResourceType, page: Page, resourceVersion: string, format: ListFormat, now: number, onRenderError: RenderErrorSink = logRenderError): string {
  const listMeta: { resourceVersion: string; continue?: string; remainingItemCount?: number } = { resourceVersion };
  if (page.continue) listMeta.continue = page.continue;
  if (page.remainingItemCount !== undefined) listMeta.remainingItemCount = page.remainingItemCount;
  const view = viewFor(type, format.view);
  if (format.as === 'Table') {
    const objects = page.items.map((e) => JSON.parse(e.json));
    const table = toTableIsolated(type, objects, { includeObject: format.includeObject, now, listMeta }, onRenderError);
    return JSON.stringify(view ? view.fromStorage(table) : table);
  }
  const head = JSON.stringify({ kind: `${type.kind}List`, apiVersion: view?.apiVersion ?? apiVersionOf(type), metadata: listMeta });
  return `${head.slice(0, -1)},"items":[${page.items.map(view ? (e) => view.json(e.json) : (e) => e.json).join(',')}]}`;
}

export function logRenderError(object: object, error: unknown): void {
  const meta = (object as { metadata?: { namespace?: string; name?: string } }).metadata;
  console.error(`table row for ${meta?.namespace ? `${meta.namespace}/` : ''}${meta?.name ?? '?'} fell back: ${String(error)}`);
}
