// Robustness: the recorded history a run produces and the checker reads — plain JSON, so a failing run's history
// can be written to a file and checked again (`npm run robustness -- --check <file>`).
//
// Times are milliseconds on one monotonic clock (the recording process's performance.now()). An object is reduced to
// what the checker compares: its resourceVersion, the marker fields writers set (every write sets a value no other
// write uses, as etcd's and Jepsen's workloads do, so an event or a read names the write it shows), and its
// finalizer and deletion state.

export type Fields = Readonly<Record<string, string>>;

export interface Obj {
  rv?: number; // undefined only inside the model, after a write whose outcome is unknown
  fields: Fields;
  finalizers: boolean;
  deleting: boolean; // metadata.deletionTimestamp set
}

// unknown: timed out or failed at the transport; the write may or may not have taken effect (porcupine's infinite
// return time). failed: a definite refusal that tells nothing about the state (e.g. 422); it must never take effect.
export type Outcome = 'ok' | 'notFound' | 'conflict' | 'alreadyExists' | 'unknown' | 'failed';

export interface Op {
  id: number;
  client: string; // at most one operation in flight per client (etcd's assumption, checked)
  type: string; // resource type, e.g. core/configmaps: each is its own linearizable store
  call: number;
  ret: number; // Infinity when the outcome is unknown
  op: 'create' | 'update' | 'delete' | 'get' | 'list';
  key?: string; // namespace/name
  // writes
  sets?: Fields; // the marker fields this write sets; create: all fields, update: these over the old ones
  finalizers?: boolean; // finalizers present (true) or absent (false) after the write; undefined: left as they were
  upsert?: boolean; // creates the object when missing (server-side apply)
  precondition?: number; // resourceVersion precondition (update, patch, delete)
  // reads
  rv?: '' | '0' | number; // the resourceVersion asked: '' is a consistent read, '0' any, a number with `match`
  match?: 'Exact' | 'NotOlderThan';
  namespace?: string; // a list's scope ('' = all namespaces)
  target?: string; // where a read was served: 'store' or a replica
  // outcome
  outcome: Outcome;
  result?: Obj | null; // the object answered (null: a delete that removed it)
  revision?: number; // a list's resourceVersion
  items?: Record<string, Obj>; // a list's items by key (every page)
  note?: string; // how it was sent (verb, patch type, pages), for printing
}

export interface HistoryEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  obj: Obj;
  at?: number; // when the recorder received it (an upper bound for when the write took effect)
}

/** The ground truth of one resource type: its state at `base`, then every change up to `final`. */
export interface TypeHistory {
  base: number;
  initial: Record<string, Obj>;
  events: HistoryEvent[];
  final: number; // the last revision of the run (its closing write); every open watcher must reach it
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  rv: number; // 0 for an ERROR
  key?: string;
  obj?: Obj;
  at: number;
  initialEnd?: boolean; // the k8s.io/initial-events-end bookmark
  code?: number; // an ERROR's Status code
}

export interface Session {
  id: string;
  watcher: string; // the logical watcher a resumed session continues
  transport: 'http' | 'ws';
  target: string; // 'store' or a replica
  type: string;
  namespace: string; // '' = all namespaces
  start: number | 'list'; // events after this revision, or a watch-list (sendInitialEvents) from now
  opened: number;
  closed: number;
  // open: still running when the run ended (it must have reached the final revision); client: closed by the
  // client; server: ended by the server; error: failed at the transport; expired: 410
  end: 'open' | 'client' | 'server' | 'error' | 'expired';
  events: WatchEvent[];
}

export interface History {
  seed?: number;
  faults?: { name: string; at: number; until?: number; detail?: string }[];
  ops: Op[];
  types: Record<string, TypeHistory>;
  sessions: Session[];
}

/** namespace/name → namespace. */
export const namespaceOf = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');

export const inScope = (key: string, namespace: string): boolean => namespace === '' || namespaceOf(key) === namespace;

/** The parts two views of one object must agree on (resourceVersion aside). */
export function sameContent(a: Obj, b: Obj): boolean {
  if (a.finalizers !== b.finalizers || a.deleting !== b.deleting) return false;
  const ka = Object.keys(a.fields);
  if (ka.length !== Object.keys(b.fields).length) return false;
  return ka.every((k) => a.fields[k] === b.fields[k]);
}

export const sameObj = (a: Obj, b: Obj): boolean => a.rv === b.rv && sameContent(a, b);
