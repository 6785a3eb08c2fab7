// Console panel 3: the event stream, newest first, from the same sockets as the tables: time, type, kind,
// namespace/name, resourceVersion, the replica that delivered it and, for the load generator's writes, the
// write→delivery time. A ring buffer of 500, drawn at most 4 times a second; pause, and filter by event type or kind.

import { el, Ring, schedule, throttled } from '../dom';
import type { Feed, FeedEvent } from '../feed';

const CAPACITY = 500;
const SHOWN = 200;
// New events are drawn at most this often. A trace of the load generator's run (2,500 events/s) had the page's
// main thread spend 4.7 s of 21 s in style, layout and paint, most of it this list repainted every frame.
const DRAW_INTERVAL_MS = 250;
const TYPES = ['ADDED', 'MODIFIED', 'DELETED'] as const;

export interface StreamEntry {
  at: number; // Date.now()
  type: string;
  kind: string;
  name: string;
  rv: string;
  replica: string;
  latencyMs: number | undefined;
}

export class EventStream {
  readonly root = el('section', { class: 'panel events', 'aria-label': 'Event stream' });
  readonly entries = new Ring<StreamEntry>(CAPACITY);
  private readonly list = el('ol', { class: 'event-list' });
  private readonly count = el('span', { class: 'count' });
  private paused = false;
  private readonly hidden = new Set<string>();
  private kindFilter = '';
  private pushed = 0; // entries ever pushed: the ring's newest is number pushed - 1
  private drawnUpTo = 0; // entries below this number are drawn (or were filtered out) in the list
  private shown = 0; // <li> entries in the list
  private redraw = true; // the filter changed or the list was paused: rebuild from the ring
  private readonly soon = throttled(this, DRAW_INTERVAL_MS);

  constructor(feeds: Map<string, Feed>, private readonly latencyOf: (e: FeedEvent) => number | undefined) {
    const pause = el('button', { type: 'button', 'aria-pressed': 'false', onclick: () => {
      this.paused = !this.paused;
      pause.textContent = this.paused ? 'Resume' : 'Pause';
      pause.setAttribute('aria-pressed', String(this.paused));
      this.redraw = true;
      schedule(this);
    } }, 'Pause');
    const filters = TYPES.map((t) => {
      const box = el('input', { type: 'checkbox', checked: true, onchange: () => {
        if (box.checked) this.hidden.delete(t);
        else this.hidden.add(t);
        this.redraw = true;
        schedule(this);
      } });
      return el('label', { class: `filter ${t}` }, box, ` ${t}`);
    });
    const kinds = el('select', { 'aria-label': 'Kind', onchange: () => {
      this.kindFilter = kinds.value;
      this.redraw = true;
      schedule(this);
    } }, el('option', { value: '' }, 'all kinds'), ...[...feeds.values()].map((f) => el('option', { value: kindOf(f) }, kindOf(f))));
    this.root.append(el('div', { class: 'panel-head' }, el('h2', {}, 'Events'), this.count, pause, ...filters, kinds), this.list);
    for (const feed of feeds.values()) {
      feed.onEvent((e) => {
        this.entries.push({
          at: Date.now(), type: e.type, kind: e.object.kind ?? kindOf(feed),
          name: `${e.object.metadata.namespace ? `${e.object.metadata.namespace}/` : ''}${e.object.metadata.name}`,
          rv: e.object.metadata.resourceVersion ?? '', replica: e.replica, latencyMs: this.latencyOf(e),
        });
        this.pushed++;
        if (!this.paused) this.soon();
      });
    }
    this.list.append(el('li', { class: 'empty' }, 'Waiting for changes…'));
  }

  /** Patches the list: only entries pushed since the last draw become rows, and the oldest rows beyond SHOWN go.
   * At 2,500 events/s a rebuild of all SHOWN rows per frame (each with a locale time format) took the page's whole
   * main thread (a Chrome profile of the load generator's browser test: 16 s of 57), starving its sockets. */
  render(): void {
    if (this.paused) return;
    this.count.textContent = `${this.entries.size} kept`;
    const fresh = Math.min(this.pushed - this.drawnUpTo, this.entries.size);
    if (!this.redraw && fresh === 0) return;
    const rows: HTMLElement[] = [];
    // Newest first; on a redraw, or when more arrived since the last draw than the list shows, the list is rebuilt.
    const rebuild = this.redraw || fresh >= SHOWN;
    for (const e of this.entries.newest(rebuild ? this.entries.size : fresh)) {
      if (this.hidden.has(e.type) || (this.kindFilter && e.kind !== this.kindFilter)) continue;
      rows.push(this.row(e));
      if (rows.length >= SHOWN) break;
    }
    this.drawnUpTo = this.pushed;
    this.redraw = false;
    if (rebuild) {
      if (rows.length) this.list.replaceChildren(...rows);
      else if (this.shown) this.list.replaceChildren();
      this.shown = rows.length;
      return;
    }
    if (!rows.length) return;
    if (this.shown === 0) this.list.replaceChildren();
    this.list.prepend(...rows);
    this.shown += rows.length;
    for (; this.shown > SHOWN; this.shown--) this.list.lastElementChild?.remove();
  }

  private row(e: StreamEntry): HTMLElement {
    return el('li', { class: e.type, 'data-rv': e.rv, 'data-type': e.type, 'data-name': e.name },
      el('time', {}, clock(e.at)), el('span', { class: 'etype' }, e.type), el('span', { class: 'kind' }, e.kind),
      el('span', { class: 'name' }, e.name), el('span', { class: 'rv' }, `RV ${e.rv}`), el('span', { class: 'replica' }, e.replica),
      el('span', { class: 'latency' }, e.latencyMs !== undefined ? `${e.latencyMs.toFixed(1)} ms` : ''));
  }
}

/** hh:mm:ss in local time, formatted once per second rather than once per row (Intl formatting is not cheap). */
let clockSecond = -1;
let clockText = '';
function clock(at: number): string {
  const second = Math.floor(at / 1000);
  if (second !== clockSecond) {
    clockSecond = second;
    clockText = new Date(at).toLocaleTimeString([], { hour12: false });
  }
  return clockText;
}

function kindOf(feed: Feed): string {
  const label = feed.opts.label;
  return label.endsWith('s') ? label.slice(0, -1) : label;
}
