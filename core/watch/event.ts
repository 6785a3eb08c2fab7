// Caching and broadcast layers: one change as the watch machinery sees it, and its wire frames,
// serialized at most once per (event, delivered type, format) however many watchers receive it.

import type { StateEntry } from '../object-state';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type FrameFormat = 'json' | 'table' | 'table-headers';

export interface WatchEvent {
  revision: number;
  type: EventType;
  namespace: string;
  name: string;
  key: string;
  object: StateEntry; // the new state; for DELETED the last state, stamped with the deletion revision
  prev: StateEntry | undefined; // the state before, for selector transitions
  at: number; // ms since epoch, for the window's age bound
  frames?: Map<string, Frame>;
}

/** One encoded watch event: text for WebSockets, bytes (encoded once, lazily) for HTTP streams. */
export interface Frame {
  text: string;
  bytes?: Uint8Array;
}

const encoder = new TextEncoder();
export function frameBytes(f: Frame): Uint8Array {
  return (f.bytes ??= encoder.encode(f.text));
}

const FRAME_KEYS: Record<EventType, Record<FrameFormat, string>> = {
  ADDED: { json: 'ADDED/json', table: 'ADDED/table', 'table-headers': 'ADDED/table-headers' },
  MODIFIED: { json: 'MODIFIED/json', table: 'MODIFIED/table', 'table-headers': 'MODIFIED/table-headers' },
  DELETED: { json: 'DELETED/json', table: 'DELETED/table', 'table-headers': 'DELETED/table-headers' },
};

/** Renders a Table frame body for one object; supplied by the layer that knows the type. */
export type TableRenderer = (objectJson: string, headers: boolean) => string;

/**
 * The bytes a watcher receives for `ev` delivered as `type`: the stored JSON spliced in unparsed.
 * A DELETED delivered because the object stopped matching carries the previous state with the event's
 * revision (apiserver cache_watcher.go convertToWatchEvent).
 */
export function frameFor(ev: WatchEvent, type: EventType, format: FrameFormat, table?: TableRenderer): Frame {
  // Looked up per watcher: a constant key, so the hot path builds no string.
  const cacheKey = FRAME_KEYS[type][format];
  const cached = ev.frames?.get(cacheKey);
  if (cached) return cached;
  const objectJson = type === 'DELETED' && ev.type === 'MODIFIED' ? stampRevision(ev.prev!.json, ev.revision) : ev.object.json;
  const body = format === 'json' ? objectJson : table!(objectJson, format === 'table-headers');
  const frame = { text: `{"type":"${type}","object":${body}}\n` };
  (ev.frames ??= new Map()).set(cacheKey, frame);
  return frame;
}

/** Builds one message of several frames; see frameJoiner. */
export type FrameJoin = (frames: readonly Frame[]) => string;

/**
 * Joins frames into one message (each frame ends in a newline, so the message is the frames' lines). Watchers
 * of the same events hold the same Frame objects in the same order: the last join is kept and reused when the
 * next list holds the same frames, so a burst is concatenated once per flush, not once per watcher.
 */
export function frameJoiner(): FrameJoin {
  let last: readonly Frame[] = [];
  let lastText = '';
  return (frames) => {
    if (frames.length === 1) return frames[0].text;
    let same = frames.length === last.length;
    for (let i = 0; same && i < frames.length; i++) same = frames[i] === last[i];
    if (same) return lastText;
    let text = '';
    for (const f of frames) text += f.text;
    last = frames;
    lastText = text;
    return text;
  };
}

export function bookmarkFrame(kind: string, apiVersion: string, revision: number, initialEventsEnd = false): Frame {
  const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return { text: `${JSON.stringify({ type: 'BOOKMARK', object: { kind, apiVersion, metadata } })}\n` };
}

export function errorFrame(status: object): Frame {
  return { text: `${JSON.stringify({ type: 'ERROR', object: status })}\n` };
}

/** A synthetic ADDED for the initial state of a watch. */
export function addedFrame(objectJson: string, format: FrameFormat, table?: TableRenderer): Frame {
  const body = format === 'json' ? objectJson : table!(objectJson, format === 'table-headers');
  return { text: `{"type":"ADDED","object":${body}}\n` };
}

function stampRevision(json: string, revision: number): string {
  const obj = JSON.parse(json) as { metadata: { resourceVersion?: string } };
  obj.metadata.resourceVersion = String(revision);
  return JSON.stringify(obj);
}
