// Core: the Table columns of a custom resource (apiextensions registry/customresource/tableconvertor):
// Name, then the version's additionalPrinterColumns, each a client-go JSONPath `{<path>}` over the object;
// with no columns, Age (apiserver helpers.go serveDefaultColumnsIfEmpty).

import { CREATED_DOC, NAME, humanDuration, parseTime, type Column, type ColumnType, type TableSpec } from '../tables/columns';
import type { PrinterColumn } from './crd-object';

const cache = new WeakMap<readonly PrinterColumn[], TableSpec>();

export function customTableSpec(columns: readonly PrinterColumn[]): TableSpec {
  const done = cache.get(columns);
  if (done) return done;
  const defs = columns.length ? columns : [{ name: 'Age', type: 'date', description: CREATED_DOC, jsonPath: '.metadata.creationTimestamp' }];
  const spec: TableSpec = { columns: [NAME, ...defs.map(column)] };
  cache.set(columns, spec);
  return spec;
}

function column(c: PrinterColumn): Column {
  const path = parsePath(c.jsonPath ?? '');
  const type = (c.type ?? 'string') as ColumnType;
  return {
    name: c.name ?? '', type, format: c.format ?? '', priority: c.priority ?? 0, description: c.description ?? '',
    // A cell that does not fit the column type is null, as the tableconvertor leaves it (CellValue has no null).
    cell: (obj, now) => cellOf(type, path ? evaluate(path, obj) : undefined, now) as never,
  };
}

function cellOf(type: ColumnType, v: unknown, now: number): unknown {
  if (v === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? v : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date': {
      if (typeof v !== 'string') return null;
      const t = parseTime(v);
      return t === undefined ? '<invalid>' : humanDuration(now - t);
    }
    default:
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

type Filter = { fields: string[]; op?: '==' | '!='; value?: string | number };
type Step = { field: string } | { index: number } | { all: true } | { filter: Filter };

/**
 * `.spec.x`, `.items[0].name`, `.items[*].name`, `.metadata.labels['app']`, and client-go's filters
 * `[?(@.type=="Ready")]`, `[?(@.a.b!='x')]`, `[?(@.port==80)]`, `[?(@.ready)]`; undefined if unsupported.
 */
export function parsePath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  const re = /\.([A-Za-z0-9_$-]+)|\[(\d+)\]|\[\*\]|\[['"]([^'"]*)['"]\]|\[\?\(@((?:\.[A-Za-z0-9_$-]+)+)\s*(?:(==|!=)\s*(?:"([^"]*)"|'([^']*)'|(-?[0-9]+(?:\.[0-9]+)?)))?\s*\)\]|\.\[?\*\]?/y;
  let i = 0;
  while (i < path.length) {
    re.lastIndex = i;
    const m = re.exec(path);
    if (!m) return undefined;
    if (m[1] !== undefined) steps.push({ field: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ field: m[3] });
    else if (m[4] !== undefined) {
      const filter: Filter = { fields: m[4].slice(1).split('.') };
      if (m[5] !== undefined) {
        filter.op = m[5] as '==' | '!=';
        filter.value = m[6] ?? m[7] ?? Number(m[8]);
      }
      steps.push({ filter });
    } else steps.push({ all: true });
    i = re.lastIndex;
  }
  return steps;
}

// client-go jsonpath evalFilter: the items of a list (or the values of a map) whose field compares true.
function matchesFilter(item: unknown, f: Filter): boolean {
  let v: unknown = item;
  for (const k of f.fields) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, k)) return false;
    v = (v as Record<string, unknown>)[k];
  }
  if (f.op === undefined) return true;
  const equal = typeof f.value === 'number' ? typeof v === 'number' && v === f.value : typeof v === 'string' && v === f.value;
  return f.op === '==' ? equal : !equal;
}

/** The first value the path matches (client-go JSONPath with AllowMissingKeys; first result wins). */
export function evaluate(steps: Step[], obj: unknown): unknown {
  let current: unknown[] = [obj];
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if ('field' in s) {
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, s.field)) next.push((v as Record<string, unknown>)[s.field]);
      } else if ('index' in s) {
        if (Array.isArray(v) && s.index < v.length) next.push(v[s.index]);
      } else if ('filter' in s) {
        const items = Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : [];
        for (const item of items) if (matchesFilter(item, s.filter)) next.push(item);
      } else if (Array.isArray(v)) next.push(...v);
      else if (v !== null && typeof v === 'object') next.push(...Object.values(v));
    }
    current = next;
    if (!current.length) return undefined;
  }
  return current[0];
}
