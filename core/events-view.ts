// Every layer: events.k8s.io/v1 Event as a view over the core/v1 Event store. kube keeps one storage
// for both APIs (pkg/registry/events and core/event share etcd's /events prefix) and converts between
// the versions (pkg/apis/events/v1/conversion.go, through the internal core.Event): regarding ↔
// involvedObject, note ↔ message, reportingController ↔ reportingComponent, deprecatedSource ↔ source,
// deprecatedFirstTimestamp/LastTimestamp ↔ firstTimestamp/lastTimestamp, deprecatedCount ↔ count; every
// other field (eventTime, series, action, reason, related, type, reportingInstance, metadata) is shared.
// Here the front door sends events.k8s.io requests to the core events store, rewriting request bodies
// to core/v1 and replies (objects, lists, Table rows' objects, watch frames) to events.k8s.io/v1.

export const EVENTS_V1 = 'events.k8s.io/v1';
export const EVENTS_VIEW_GROUP_RESOURCE = 'events.k8s.io/events';
export const CORE_EVENTS_GROUP_RESOURCE = 'core/events';

// [events.k8s.io/v1 field, core/v1 field]
const RENAMES: [string, string][] = [
  ['regarding', 'involvedObject'], ['note', 'message'], ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'], ['deprecatedFirstTimestamp', 'firstTimestamp'], ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

type Obj = Record<string, unknown>;

function rename(obj: Obj, pairs: [string, string][], apiVersion: string): Obj {
  const out: Obj = {};
  const map = new Map(pairs);
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion') out.apiVersion = apiVersion;
    else out[map.get(k) ?? k] = v;
  }
  return out;
}

/** A core/v1 Event as events.k8s.io/v1 sees it; anything else (a Status) unchanged. */
export function toEventsV1(obj: Obj): Obj {
  if (obj?.kind !== 'Event' || obj.apiVersion !== 'v1') return obj;
  return rename(obj, RENAMES.map(([a, b]) => [b, a]), EVENTS_V1);
}

/** An events.k8s.io/v1 Event written through the view, as the core/v1 store keeps it. */
export function toCoreEvent(obj: Obj): Obj {
  if (obj?.apiVersion !== EVENTS_V1) return obj;
  return rename(obj, RENAMES, 'v1');
}

/** A store reply (object, EventList, Table, Status) in events.k8s.io/v1. */
export function replyToEventsV1(text: string): string {
  let obj: Obj;
  try {
    obj = JSON.parse(text) as Obj;
  } catch {
    return text;
  }
  if (obj.kind === 'EventList' && obj.apiVersion === 'v1') {
    obj.apiVersion = EVENTS_V1;
    obj.items = ((obj.items as Obj[] | null) ?? []).map(toEventsV1);
  } else if (obj.kind === 'Table' && Array.isArray(obj.rows)) {
    for (const row of obj.rows as { object?: Obj }[]) if (row.object) row.object = toEventsV1(row.object);
  } else {
    obj = toEventsV1(obj);
  }
  return JSON.stringify(obj);
}

/** A create/update body written through the view, as core/v1 (undecodable bodies pass for the store to word the error). */
export function bodyToCoreEvent(text: string): string {
  try {
    const obj = JSON.parse(text) as Obj;
    return obj && typeof obj === 'object' && !Array.isArray(obj) ? JSON.stringify(toCoreEvent(obj)) : text;
  } catch {
    return text;
  }
}

/** One watch frame (`{"type":…,"object":…}\n`) in events.k8s.io/v1. */
export function frameToEventsV1(text: string): string {
  try {
    const ev = JSON.parse(text) as { type: string; object: Obj };
    if (ev.object?.kind === 'Event') ev.object = toEventsV1(ev.object); // bookmarks too
    else if (ev.object?.kind === 'Table' && Array.isArray(ev.object.rows)) {
      for (const row of ev.object.rows as { object?: Obj }[]) if (row.object) row.object = toEventsV1(row.object);
    }
    return `${JSON.stringify(ev)}\n`;
  } catch {
    return text;
  }
}

/** A patch body written through the view: top-level field names (merge, strategic) or paths (JSON patch) in core/v1 terms. */
export function patchToCoreEvent(text: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return text;
  }
  const renames = new Map(RENAMES);
  if (Array.isArray(doc)) {
    for (const op of doc as { path?: unknown; from?: unknown }[]) {
      for (const k of ['path', 'from'] as const) {
        const v = op?.[k];
        if (typeof v !== 'string') continue;
        const [, first, rest] = /^\/([^/]*)(.*)$/.exec(v) ?? [];
        if (first !== undefined && renames.has(first)) op[k] = `/${renames.get(first)}${rest}`;
      }
    }
    return JSON.stringify(doc);
  }
  if (!doc || typeof doc !== 'object') return text;
  const out: Obj = {};
  for (const [k, v] of Object.entries(doc as Obj)) out[k === 'apiVersion' && v === EVENTS_V1 ? k : renames.get(k) ?? k] = k === 'apiVersion' && v === EVENTS_V1 ? 'v1' : v;
  return JSON.stringify(out);
}
