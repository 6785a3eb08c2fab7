// Console panel 2: a table per watched type, one tab each (arrow keys move between tabs). Rows are patched,
// not rebuilt: a MODIFIED row flashes, a DELETED one fades out; at most MAX_ROWS rows are drawn.

import { age, el, schedule } from '../dom';
import { key, type Feed, type FeedEvent } from '../feed';
import type { WatchedType } from '../types';
import type { KubeObject } from '../../client/index';

const MAX_ROWS = 1000;

export class Tables {
  readonly root = el('section', { class: 'panel tables', 'aria-label': 'Resources' });
  private readonly tabs = el('div', { role: 'tablist', 'aria-label': 'Resource types' });
  private readonly body = el('div', { class: 'table-wrap', role: 'tabpanel', tabindex: '0' });
  private active: string;
  private rendered = new Map<string, HTMLTableRowElement>();
  private flashes = new Map<string, string>(); // key → class to apply on the next render
  private readonly tabButtons = new Map<string, HTMLButtonElement>();

  constructor(private readonly types: WatchedType[], private readonly feeds: Map<string, Feed>) {
    this.active = types[1]?.id ?? types[0]!.id;
    for (const t of types) {
      const b = el('button', { role: 'tab', id: `tab-${t.id}`, 'aria-controls': 'resource-table', onclick: () => this.select(t.id) }, t.label);
      b.addEventListener('keydown', (ev) => this.keys(ev as KeyboardEvent, t.id));
      this.tabButtons.set(t.id, b);
      this.tabs.append(b);
      const feed = feeds.get(t.id)!;
      feed.onEvent((e) => this.onEvent(t.id, e));
      feed.onRelist(() => {
        if (t.id === this.active) schedule(this);
      });
    }
    this.body.id = 'resource-table';
    this.root.append(this.tabs, this.body);
    this.select(this.active);
  }

  private keys(ev: KeyboardEvent, id: string): void {
    const ids = this.types.map((t) => t.id);
    const i = ids.indexOf(id);
    const next = ev.key === 'ArrowRight' ? ids[(i + 1) % ids.length] : ev.key === 'ArrowLeft' ? ids[(i - 1 + ids.length) % ids.length] : undefined;
    if (!next) return;
    ev.preventDefault();
    this.select(next);
    this.tabButtons.get(next)!.focus();
  }

  select(id: string): void {
    this.active = id;
    for (const [tid, b] of this.tabButtons) {
      b.setAttribute('aria-selected', String(tid === id));
      b.tabIndex = tid === id ? 0 : -1;
    }
    this.rendered.clear();
    this.body.replaceChildren();
    this.body.setAttribute('aria-labelledby', `tab-${id}`);
    schedule(this);
  }

  private onEvent(typeId: string, e: FeedEvent): void {
    if (typeId !== this.active) return;
    this.flashes.set(key(e.object), e.type === 'DELETED' ? 'gone' : e.type === 'ADDED' ? 'added' : 'flash');
    if (e.type === 'DELETED') this.flashes.set(`deleted:${key(e.object)}`, JSON.stringify(e.object));
    schedule(this);
  }

  render(): void {
    const type = this.types.find((t) => t.id === this.active)!;
    const feed = this.feeds.get(type.id)!;
    let table = this.body.querySelector('table');
    if (!table) {
      const head = el('tr', {}, ...(type.namespaced ? [el('th', { scope: 'col' }, 'Namespace')] : []), el('th', { scope: 'col' }, 'Name'),
        ...type.columns.map((c) => el('th', { scope: 'col' }, c.title)), el('th', { scope: 'col' }, 'RV'), el('th', { scope: 'col' }, 'Age'));
      table = el('table', { class: 'resources', 'data-type': type.id }, el('thead', {}, head), el('tbody'));
      this.body.replaceChildren(table);
    }
    const tbody = table.tBodies[0]!;
    const objects = [...feed.rows.values()].sort(byName).slice(0, MAX_ROWS);
    if (objects.length === 0) {
      const text = feed.status.relists > 0 ? `No ${type.label.toLowerCase()} visible to you yet.` : 'Loading…';
      tbody.replaceChildren(el('tr', { class: 'empty' }, el('td', { colspan: String(type.columns.length + 4) }, text)));
      this.rendered.clear();
      return;
    }
    tbody.querySelector('tr.empty')?.remove();
    const keep = new Set<string>();
    let previous: HTMLTableRowElement | null = null;
    for (const o of objects) {
      const k = key(o);
      keep.add(k);
      let row = this.rendered.get(k);
      const cells = [...(type.namespaced ? [o.metadata.namespace ?? ''] : []), o.metadata.name ?? '', ...type.columns.map((c) => c.value(o)),
        o.metadata.resourceVersion ?? '', age(o.metadata.creationTimestamp as string | undefined)];
      if (!row) {
        row = el('tr', { 'data-key': k, 'data-name': o.metadata.name ?? '', 'data-namespace': o.metadata.namespace ?? '' }, ...cells.map((v) => el('td', {}, v)));
        this.rendered.set(k, row);
      } else {
        cells.forEach((v, i) => {
          const td = row!.cells[i]!;
          if (td.textContent !== v) td.textContent = v;
        });
      }
      row.dataset.rv = o.metadata.resourceVersion ?? '';
      const flash = this.flashes.get(k);
      if (flash && flash !== 'gone') {
        row.classList.remove('flash', 'added');
        void row.offsetWidth; // restart the animation
        row.classList.add(flash);
        this.flashes.delete(k);
      }
      const at: ChildNode | null = previous ? previous.nextSibling : tbody.firstChild;
      if (at !== row) tbody.insertBefore(row, at);
      previous = row;
    }
    for (const [k, row] of this.rendered) {
      if (keep.has(k)) continue;
      this.rendered.delete(k);
      if (this.flashes.get(k) === 'gone') {
        row.classList.add('gone');
        setTimeout(() => row.remove(), 400);
      } else row.remove();
      this.flashes.delete(k);
      this.flashes.delete(`deleted:${k}`);
    }
  }

  /** Names shown for a type, for tests and the debug state. */
  names(typeId: string): string[] {
    return [...(this.feeds.get(typeId)?.rows.values() ?? [])].map((o) => `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
  }
}

function byName(a: KubeObject, b: KubeObject): number {
  const x = `${a.metadata.namespace ?? ''}/${a.metadata.name}`;
  const y = `${b.metadata.namespace ?? ''}/${b.metadata.name}`;
  return x < y ? -1 : x > y ? 1 : 0;
}
