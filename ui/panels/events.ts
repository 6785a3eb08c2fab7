// Console panel 3: the event stream, newest first, from the same sockets as the tables: time, type, kind,
// namespace/name, resourceVersion, the replica that delivered it and, for the load generator's writes, the
// write→delivery time. A ring buffer of 500; pause, and filter by event type or kind.

import { el, Ring, schedule } from '../dom';
import type { Feed, FeedEvent } from '../feed';

const CAPACITY = 500;
const SHOWN = 200;
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

  constructor(feeds: Map<string, Feed>, private readonly latencyOf: (e: FeedEvent) => number | undefined) {
    const pause = el('button', { type: 'button', 'aria-pressed': 'false', onclick: () => {
      this.paused = !this.paused;
      pause.textContent = this.paused ? 'Resume' : 'Pause';
      pause.setAttribute('aria-pressed', String(this.paused));
      schedule(() => this.render());
    } }, 'Pause');
    const filters = TYPES.map((t) => {
      const box = el('input', { type: 'checkbox', checked: true, onchange: () => {
        if (box.checked) this.hidden.delete(t);
        else this.hidden.add(t);
        schedule(() => this.render());
      } });
      return el('label', { class: `filter ${t}` }, box, ` ${t}`);
    });
    const kinds = el('select', { 'aria-label': 'Kind', onchange: () => {
      this.kindFilter = kinds.value;
      schedule(() => this.render());
    } }, el('option', { value: '' }, 'all kinds'), ...[...feeds.values()].map((f) => el('option', { value: kindOf(f) }, kindOf(f))));
    this.root.append(el('div', { class: 'panel-head' }, el('h2', {}, 'Events'), this.count, pause, ...filters, kinds), this.list);
    for (const feed of feeds.values()) {
      feed.onEvent((e) => {
        this.entries.push({
          at: Date.now(), type: e.type, kind: e.object.kind ?? kindOf(feed),
          name: `${e.object.metadata.namespace ? `${e.object.metadata.namespace}/` : ''}${e.object.metadata.name}`,
          rv: e.object.metadata.resourceVersion ?? '', replica: e.replica, latencyMs: this.latencyOf(e),
        });
        if (!this.paused) schedule(() => this.render());
      });
    }
    this.list.append(el('li', { class: 'empty' }, 'Waiting for changes…'));
  }

  render(): void {
    if (this.paused) return;
    const shown: HTMLElement[] = [];
    for (const e of this.entries.newest()) {
      if (this.hidden.has(e.type) || (this.kindFilter && e.kind !== this.kindFilter)) continue;
      shown.push(el('li', { class: e.type, 'data-rv': e.rv, 'data-type': e.type, 'data-name': e.name },
        el('time', {}, new Date(e.at).toLocaleTimeString([], { hour12: false })), el('span', { class: 'etype' }, e.type), el('span', { class: 'kind' }, e.kind),
        el('span', { class: 'name' }, e.name), el('span', { class: 'rv' }, `RV ${e.rv}`), el('span', { class: 'replica' }, e.replica),
        el('span', { class: 'latency' }, e.latencyMs !== undefined ? `${e.latencyMs.toFixed(1)} ms` : '')));
      if (shown.length >= SHOWN) break;
    }
    this.count.textContent = `${this.entries.size} kept`;
    if (shown.length) this.list.replaceChildren(...shown);
  }
}

function kindOf(feed: Feed): string {
  const label = feed.opts.label;
  return label.endsWith('s') ? label.slice(0, -1) : label;
}
