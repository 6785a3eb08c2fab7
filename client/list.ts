// Client: a complete, consistent list. Pages are followed through `continue` because a server may return
// fewer items than `limit` (even none) with more to come; every page is read at the first page's revision.

import { ApiError, parseStatus, type ConnectionOptions, type FetchFn, type KubeObject } from './types';
import { apiUrl } from './url';

export interface ListOptions extends ConnectionOptions {
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number; // page size; 0 or undefined: one request
  signal?: AbortSignal;
  transform?: (object: KubeObject) => KubeObject; // applied to each item as its page arrives (keep only what is needed)
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string; // where a watch continues from
}

interface ListBody {
  kind?: string;
  apiVersion?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items?: KubeObject[];
}

export async function listAll(o: ListOptions): Promise<ListResult> {
  const fetchFn: FetchFn = o.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  const items: KubeObject[] = [];
  let resourceVersion = '';
  let token: string | undefined;
  do {
    const url = apiUrl(o.server, o.path, {
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      limit: o.limit || undefined,
      continue: token,
    });
    const res = await fetchFn(url.toString(), { headers, signal: o.signal });
    const text = await res.text();
    // An expired continue token (410) surfaces here too; the caller lists again from the start.
    if (res.status !== 200) throw new ApiError(res.status, parseStatus(text));
    const body = JSON.parse(text) as ListBody;
    // Real apiservers leave kind/apiVersion off list items; restore them so listed and watched objects
    // look the same to handlers.
    const kind = body.kind?.endsWith('List') ? body.kind.slice(0, -'List'.length) : undefined;
    for (const item of body.items ?? []) {
      const full = item.kind || !kind ? item : { apiVersion: body.apiVersion, kind, ...item };
      items.push(o.transform ? o.transform(full) : full);
    }
    if (!token) resourceVersion = body.metadata?.resourceVersion ?? '';
    token = body.metadata?.continue || undefined;
  } while (token);
  return { items, resourceVersion };
}
