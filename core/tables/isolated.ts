// Core: Tables that one bad object cannot break. A stored object the printers cannot read (a field of the
// wrong shape) must not turn a `kubectl get` list into a 500 or end a `kubectl get -w`: its row is built
// cell by cell instead, and a cell whose printer throws is null, which kubectl prints as <none>. This is
// what kube's own CRD table convertor does with a column it cannot evaluate
// (apiextensions-apiserver pkg/registry/customresource/tableconvertor: a failed JSONPath leaves a nil cell).

import { groupResource, type ResourceType } from '../registry';
import { rowObject, toTable, type Table, type TableOptions, type TableRow } from './table';
import { tableSpecFor, type CellValue, type KubeObj } from './index';

/** Called once per object whose row needed the fallback (for logs and metrics). */
export type RenderErrorSink = (object: object, error: unknown) => void;

/**
 * toTable, except that an object whose row throws gets a fallback row: every cell that can be computed,
 * null for the others, no row conditions. Linear: the whole page is tried at once, and only a page with
 * a failing row is rebuilt row by row.
 */
export function toTableIsolated(type: ResourceType, objects: object[], opts: TableOptions, onError: RenderErrorSink): Table {
  try {
    return toTable(type, objects, opts);
  } catch {
    // Rebuilt row by row below, so only the objects that fail are reported.
  }
  const table = toTable(type, [], opts);
  table.rows = objects.map((o) => {
    try {
      return toTable(type, [o], { ...opts, noHeaders: true }).rows[0];
    } catch (e) {
      onError(o, e);
      return fallbackRow(type, o as KubeObj, opts);
    }
  });
  return table;
}

function fallbackRow(type: ResourceType, obj: KubeObj, opts: TableOptions): TableRow {
  const spec = tableSpecFor(groupResource(type));
  const cells = spec.columns.map((c): CellValue | null => {
    try {
      return c.cell(obj, opts.now);
    } catch {
      return null;
    }
  });
  let object: Record<string, unknown> | null;
  try {
    object = rowObject(type, obj, opts.includeObject ?? 'Metadata');
  } catch {
    object = null;
  }
  return { cells: cells as CellValue[], object };
}
