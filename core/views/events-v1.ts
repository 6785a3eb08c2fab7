// Core: events.k8s.io/v1 Event as a view over the core/v1 Event store. kube keeps one storage for both APIs
// (pkg/registry/events and core/event share etcd's /events prefix) and converts between the versions
// (pkg/apis/events/v1/conversion.go, through the internal core.Event): regarding ↔ involvedObject, note ↔ message,
// reportingController ↔ reportingComponent, deprecatedSource ↔ source, deprecatedFirstTimestamp/LastTimestamp ↔
// firstTimestamp/lastTimestamp, deprecatedCount ↔ count; every other field (eventTime, series, action, reason,
// related, type, reportingInstance, metadata) is shared. The store converts written bodies to core/v1 and answers,
// lists and watch frames to events.k8s.io/v1 (./view.ts).

import { rewriteMembers, type MemberRewrite } from './json-members';
import type { ApiView } from './view';

export const EVENTS_V1 = 'events.k8s.io/v1';

// [events.k8s.io/v1 field, core/v1 field]
const RENAMES: [string, string][] = [
  ['regarding', 'involvedObject'], ['note', 'message'], ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'], ['deprecatedFirstTimestamp', 'firstTimestamp'], ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
const TO_CORE = new Map(RENAMES);
const TO_EVENTS_V1 = new Map(RENAMES.map(([a, b]) => [b, a]));

type Obj = Record<string, unknown>;

function rename(obj: Obj, names: Map<string, string>, apiVersion: string): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion') out.apiVersion = apiVersion;
    else out[names.get(k) ?? k] = v;
  }
  return out;
}

/** A core/v1 Event as events.k8s.io/v1 sees it; anything else (a Status) unchanged. */
export function toEventsV1(obj: Obj): Obj {
  if (obj?.kind !== 'Event' || obj.apiVersion !== 'v1') return obj;
  return rename(obj, TO_EVENTS_V1, EVENTS_V1);
}

/** An events.k8s.io/v1 Event written through the view, as the core/v1 store keeps it. */
export function toCoreEvent(obj: Obj): Obj {
  if (obj?.apiVersion !== EVENTS_V1) return obj;
  return rename(obj, TO_CORE, 'v1');
}

/** A reply (object, EventList, Table, Status) in events.k8s.io/v1. */
function replyToEventsV1(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const obj = value as Obj;
  if (obj.kind === 'EventList' && obj.apiVersion === 'v1') {
    return { ...obj, apiVersion: EVENTS_V1, items: ((obj.items as Obj[] | null) ?? []).map(toEventsV1) };
  }
  if (obj.kind === 'Table' && Array.isArray(obj.rows)) {
    for (const row of obj.rows as { object?: Obj }[]) if (row.object) row.object = toEventsV1(row.object);
    return obj;
  }
  return toEventsV1(obj);
}

/** One watch frame (`{"type":…,"object":…}\n`) in events.k8s.io/v1. */
function frameToEventsV1(text: string): string {
  try {
    const ev = JSON.parse(text) as { type: string; object: Obj };
    ev.object = replyToEventsV1(ev.object) as Obj; // bookmarks too
    return `${JSON.stringify(ev)}\n`;
  } catch {
    return text;
  }
}

/** A patch body written through the view: top-level field names (merge, strategic) or paths (JSON patch) in core/v1 terms. */
function patchToCoreEvent(text: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return text;
  }
  if (Array.isArray(doc)) {
    for (const op of doc as { path?: unknown; from?: unknown }[]) {
      for (const k of ['path', 'from'] as const) {
        const v = op?.[k];
        if (typeof v !== 'string') continue;
        const [, first, rest] = /^\/([^/]*)(.*)$/.exec(v) ?? [];
        if (first !== undefined && TO_CORE.has(first)) op[k] = `/${TO_CORE.get(first)}${rest}`;
      }
    }
    return JSON.stringify(doc);
  }
  if (!doc || typeof doc !== 'object') return text;
  const out: Obj = {};
  for (const [k, v] of Object.entries(doc as Obj)) out[k === 'apiVersion' && v === EVENTS_V1 ? k : TO_CORE.get(k) ?? k] = k === 'apiVersion' && v === EVENTS_V1 ? 'v1' : v;
  return JSON.stringify(out);
}

// A stored Event's text: the core/v1 names and apiVersion rewritten in place (the store holds nothing but Events).
const STORED_MEMBERS: MemberRewrite = {
  names: new Map(RENAMES.map(([a, b]) => [JSON.stringify(b), JSON.stringify(a)])),
  values: new Map([['"apiVersion"', ['"v1"', JSON.stringify(EVENTS_V1)]]]),
};

export const EVENTS_V1_VIEW: ApiView = {
  apiVersion: EVENTS_V1,
  toStorage: toCoreEvent,
  patchToStorage: patchToCoreEvent,
  fromStorage: replyToEventsV1,
  json: (stored) => rewriteMembers(stored, STORED_MEMBERS),
  frame: frameToEventsV1,
};
