// Core: structural defaults on read. apiextensions-apiserver decodes every custom object it reads from
// storage with the CRD's current schema and defaults it (customresource_handler.go schemaCoercingDecoder,
// crdConversionRESTOptionsGetter; defaulting/algorithm.go): a default added to the schema later, or one in
// a part the write never had — `status` of a new object, which create drops — shows on GET, LIST and
// WATCH without being persisted. The stores call this once per stored revision, where the served JSON is
// made (durable-objects/watch-cache.ts), never per reader or watcher.

import type { KubeObject } from '../object-meta';
import type { ResourceType } from '../registry';
import type { SchemaNode } from '../schema/node';
import { defaultCustomObject } from './custom-object';
import type { CustomTypeInfo } from './crd-types';

/** Applies the defaults to an object in place; true if it added any. */
export type ReadDefaulter = (obj: KubeObject) => boolean;

const defaulters = new WeakMap<CustomTypeInfo, ReadDefaulter | null>();

/** The type's read defaulter, or undefined when there is nothing to do (a built-in, a schema without defaults). */
export function readDefaulter(type: ResourceType): ReadDefaulter | undefined {
  const info = type.custom;
  if (!info) return undefined;
  let d = defaulters.get(info);
  if (d === undefined) {
    const schema = info.schema;
    d = hasDefaults(schema) ? (obj: KubeObject) => defaultCustomObject(schema, obj) : null;
    defaulters.set(info, d);
  }
  return d ?? undefined;
}

// One walk of the schema (a CRD schema is a tree, bounded by the CRD's size).
function hasDefaults(root: SchemaNode): boolean {
  const stack: SchemaNode[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.default !== undefined) return true;
    if (n.properties) for (const key in n.properties) stack.push(n.properties[key]);
    if (n.additionalProperties) stack.push(n.additionalProperties);
    if (n.items) stack.push(n.items);
  }
  return false;
}
