// Core (server-side apply): the schema a custom resource is merged with — its CRD version's structural
// schema, as apiextensions' buildOpenAPIModelsForApply hands it to structured-merge-diff: the root (and
// every x-kubernetes-embedded-resource object) also declares apiVersion, kind and metadata (ObjectMeta,
// so labels and annotations merge granular, finalizers as a set, ownerReferences keyed by uid).
// Everything else is read off the CRD schema by ./schema-view.ts: x-kubernetes-list-type/-list-map-keys/
// -map-type, and x-kubernetes-preserve-unknown-fields subtrees as "deduced" (maps granular, lists atomic).
//
// The node is built once per compiled schema (a WeakMap on it: it lives as long as the CRD's compiled
// type, which core/crd/crd-types.ts bounds in bytes). Only the nodes on the way to a node that gains
// fields are copied; the rest are the CRD's own nodes.

import { newNode, type SchemaNode } from '../schema/node';
import { definitionNode } from '../schema/compile';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const STRING: SchemaNode = Object.assign(newNode(), { type: 'string', leaf: 'string' });

const views = new WeakMap<SchemaNode, SchemaNode>();

/** The merge schema of a custom type's version, from its compiled structural schema. */
export function customApplyNode(schema: SchemaNode): SchemaNode {
  let view = views.get(schema);
  if (!view) {
    view = withTypeMeta(schema, new Map(), true);
    views.set(schema, view);
  }
  return view;
}

function withTypeMeta(n: SchemaNode, seen: Map<SchemaNode, SchemaNode>, isRoot: boolean): SchemaNode {
  const done = seen.get(n);
  if (done) return done;
  seen.set(n, n); // CRD schemas are trees; this only guards against a cycle all the same
  let props = n.properties;
  if (props) {
    let copied: Record<string, SchemaNode> | undefined;
    for (const key of Object.keys(props)) {
      const child = withTypeMeta(props[key], seen, false);
      if (child === props[key]) continue;
      copied ??= Object.assign(Object.create(null), props) as Record<string, SchemaNode>;
      copied[key] = child;
    }
    if (copied) props = copied;
  }
  const ap = n.additionalProperties && withTypeMeta(n.additionalProperties, seen, false);
  const items = n.items && withTypeMeta(n.items, seen, false);
  const embedded = isRoot || n.embeddedResource === true;
  if (!embedded && props === n.properties && ap === n.additionalProperties && items === n.items) return n;
  const out: SchemaNode = { ...n, additionalProperties: ap, items };
  if (embedded) {
    const meta: Record<string, SchemaNode> = Object.assign(Object.create(null), props ?? {});
    meta.apiVersion = STRING;
    meta.kind = STRING;
    meta.metadata = definitionNode(OBJECT_META)!;
    out.properties = meta;
    out.type ??= 'object';
  } else {
    out.properties = props;
  }
  seen.set(n, out);
  return out;
}
