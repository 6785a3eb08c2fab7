// Core: objects → the meta.k8s.io/v1 Table `kubectl get` asks for, shaped as apiserver's handlers/response.go
// asTable and pkg/printers TableGenerator build it (rows' objects are PartialObjectMetadata by default).

import { apiVersionOf, groupResource, type ResourceType } from '../registry';
import { customTableSpec } from '../crd/printer-columns';
import { tableSpecFor, type CellValue, type KubeObj, type RowCondition } from './index';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: CellValue[];
  conditions?: RowCondition[];
  // null for includeObject=None: metav1.TableRow.Object is a RawExtension, which encodes an empty value as null.
  object: Record<string, unknown> | null;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ListMeta;
  // null when noHeaders: metav1.Table.ColumnDefinitions has no omitempty, and a nil slice encodes as null.
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

export interface TableOptions {
  includeObject?: IncludeObject;
  now: number; // ms since the epoch; ages are relative to it
  listMeta?: ListMeta;
  // Watch events after the first carry no column definitions (apiserver handlers/response.go).
  noHeaders?: boolean;
}

export function toTable(type: ResourceType, objects: object[], opts: TableOptions): Table {
  const spec = type.custom ? customTableSpec(type.custom.columns) : tableSpecFor(groupResource(type));
  const include = opts.includeObject ?? 'Metadata';
  const rows = objects.map((o): TableRow => {
    const obj = o as KubeObj;
    const cells = spec.columns.map((c) => c.cell(obj, opts.now));
    const conditions = spec.conditions?.(obj);
    const object = rowObject(type, obj, include);
    return conditions ? { cells, conditions, object } : { cells, object };
  });
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta(opts.listMeta),
    columnDefinitions: opts.noHeaders
      ? null
      : spec.columns.map(({ name, type: t, format, description, priority }) => ({ name, type: t, format, description, priority })),
    rows,
  };
}

/** Only the ListMeta fields that are set, as `omitempty` would leave them. */
function listMeta(m: ListMeta = {}): ListMeta {
  const out: ListMeta = {};
  if (m.resourceVersion) out.resourceVersion = m.resourceVersion;
  if (m.continue) out.continue = m.continue;
  if (m.remainingItemCount !== undefined) out.remainingItemCount = m.remainingItemCount;
  return out;
}

export function rowObject(type: ResourceType, obj: KubeObj, include: IncludeObject): Record<string, unknown> | null {
  switch (include) {
    case 'None':
      return null;
    case 'Object': {
      // The full object in the resource's own version, with its type meta (stored objects may omit it).
      const { apiVersion, kind, ...rest } = obj;
      return { apiVersion: apiVersion ?? apiVersionOf(type), kind: kind ?? type.kind, ...rest };
    }
    default:
      // meta.AsPartialObjectMetadata keeps the whole ObjectMeta, managedFields included.
      return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
  }
}
