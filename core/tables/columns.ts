// Core: the shared pieces of the `kubectl get` column tables: the Column/TableSpec types, the printers.go
// formatting helpers, the col/wide builders, the Name/Age columns and the apiserver's default table.

export type CellValue = string | number | boolean;
export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

export interface Column {
  name: string;
  type: ColumnType;
  format: string;
  priority: number;
  description: string;
  cell: (obj: KubeObj, now: number) => CellValue;
}

export interface RowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableSpec {
  columns: readonly Column[];
  // Per-row conditions; only pods have them (Completed for Succeeded/Failed pods).
  conditions?: (obj: KubeObj) => RowCondition[] | undefined;
}

/** The shape every served object has; columns read further fields through the per-kind views below. */
export interface KubeObj {
  metadata?: {
    name?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

// Objects are schemaless JSON; cells read them through this untyped, read-only view.
export type View = any;

// ---- formatting helpers, each mirroring the Go helper named in its comment ----

/** apimachinery pkg/util/duration.HumanDuration: ~2-3 significant figures ("5s", "3m2s", "10m", "2d3h"). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

export function parseTime(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? undefined : t;
}

/** printers.go translateTimestampSince: "<unknown>" for a zero time. */
export function since(ts: unknown, now: number): string {
  const t = parseTime(ts);
  return t === undefined ? '<unknown>' : humanDuration(now - t);
}

/** labels.FormatLabels: sorted `k=v` pairs, or "<none>". */
export function formatLabels(m: Record<string, string> | undefined): string {
  const pairs = Object.entries(m ?? {}).map(([k, v]) => `${k}=${v}`).sort();
  return pairs.length ? pairs.join(',') : '<none>';
}

/** printers.go listWithMoreString: at most 3 entries, then "+ N more...". */
export function listWithMore(items: string[], unset: string): string {
  const max = 3;
  const shown = items.slice(0, max).join(',');
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown || unset;
}

/** net.JoinHostPort: brackets around IPv6 hosts. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

// ---- column builders ----

// metav1.ObjectMeta SwaggerDoc texts, which kube puts in every Name and Age column definition.
export const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may ' +
  'allow a client to request the generation of an appropriate name automatically. Name is primarily intended for ' +
  'creation idempotence and configuration definition. Cannot be updated. More info: ' +
  'https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const CREATED_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not ' +
  'guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is ' +
  'represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: ' +
  'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export function col(
  name: string,
  type: ColumnType,
  description: string,
  cell: (o: View, now: number) => CellValue,
  opts: { priority?: number; format?: string } = {},
): Column {
  return { name, type, format: opts.format ?? '', priority: opts.priority ?? 0, description, cell };
}

// The apiserver always prints with Wide: true (pkg/printers/storage TableConvertor), so every column is here and
// kubectl hides the priority-1 ones unless -o wide.
export function wide(name: string, type: ColumnType, description: string, cell: (o: View, now: number) => CellValue) {
  return col(name, type, description, cell, { priority: 1 });
}

export const NAME = col('Name', 'string', NAME_DOC, (o) => o.metadata?.name ?? '', { format: 'name' });
export const AGE = col('Age', 'string', CREATED_DOC, (o, now) => since(o.metadata?.creationTimestamp, now));

/** The apiserver's default convertor for types without printers (apiserver pkg/registry/rest/table.go). */
export const DEFAULT_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Created At', 'date', CREATED_DOC, (o) => {
      const t = parseTime(o.metadata?.creationTimestamp);
      // Go formats the zero time as 0001-01-01T00:00:00Z.
      return t === undefined ? '0001-01-01T00:00:00Z' : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }),
  ],
};
