// Core: the stored object a write acts on, the subresources it may name, and the size it may have once written.

import { isObjectSubresource, type ResourceType, type Subresource } from '../registry';
import { notFound, requestEntityTooLarge, StatusError } from '../status';
import type { KubeObject } from '../object-meta';
import { objectKey } from '../object-key';
import type { WriteStore } from './types';

// etcd's --max-request-bytes: the largest object the canonical store keeps.
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

export function existing(store: WriteStore, type: ResourceType, namespace: string, name: string): KubeObject {
  const current = store.get(objectKey(namespace, name));
  if (!current) throw new StatusError(notFound(type, name));
  return current;
}

export function checkSubresource(type: ResourceType, subresource: string): void {
  // Only the subresources that read and replace the object reach the store (core/registry.ts isObjectSubresource).
  if (subresource && (!type.subresources.includes(subresource as Subresource) || !isObjectSubresource(subresource))) {
    throw new StatusError(notFound({ group: type.group, resource: `${type.resource}/${subresource}` }, ''));
  }
}

/** Refuses (413) an object over MAX_OBJECT_BYTES, unless the store's commit measures what it stores (WriteStore.checksSize). */
export function checkSize(store: WriteStore, obj: KubeObject): void {
  if (!store.checksSize) checkJsonSize(JSON.stringify(obj));
}

/** Refuses (413) an object whose JSON is `json` when it is over MAX_OBJECT_BYTES. */
export function checkJsonSize(json: string): void {
  // UTF-8 bytes, as etcd and SQLite count them: 1.5M characters of non-ASCII text would be several MB. A UTF-16
  // code unit is at most 3 UTF-8 bytes, so short text needs no count.
  if (json.length * 3 <= MAX_OBJECT_BYTES) return;
  if (utf8Length(json) > MAX_OBJECT_BYTES) throw new StatusError(requestEntityTooLarge(`limit is ${MAX_OBJECT_BYTES}`));
}

function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1; // surrogate pairs: 2 units, 4 bytes
  }
  return n;
}
