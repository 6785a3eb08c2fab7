// Console panel 1: per watched type its socket state, the page's resourceVersion against the store's,
// reconnects and the last 410; the signed-in user and /readyz. Staleness is shown, never hidden: a type with
// no message for a while says for how long.

import { el, schedule } from '../dom';
import type { Feed } from '../feed';
import type { Topology } from './topology';

const STALE_AFTER_MS = 90_000; // bookmarks arrive about every minute on a quiet watch

export class StatusBar {
  readonly root = el('header', { class: 'status-bar', role: 'status', 'aria-live': 'polite' });
  private readonly who = el('span', { class: 'who' });
  private readonly ready = el('span', { class: 'ready' });
  private readonly chips = el('ul', { class: 'chips' });
  private readyState = 'checking';

  constructor(private readonly feeds: Map<string, Feed>, private readonly topology: Topology) {
    this.root.append(el('h1', {}, 'edgeplane live'), this.chips, this.ready, this.who);
    setInterval(() => schedule(this), 1000);
  }

  setUser(name: string): void {
    this.who.textContent = name;
  }

  setReady(ok: boolean): void {
    this.readyState = ok ? 'ready' : 'not ready';
    schedule(this);
  }

  render(): void {
    const now = performance.now();
    this.chips.replaceChildren(...[...this.feeds].map(([id, feed]) => {
      const s = feed.status;
      const storeRv = this.topology.storeRevision(id);
      const silentFor = s.lastMessageAt ?? s.openedAt;
      const stale = s.state === 'live' && silentFor !== undefined && now - silentFor > STALE_AFTER_MS;
      const state = stale ? `stale for ${Math.round((now - silentFor!) / 1000)} s`
        : s.state === 'resuming' ? `resuming from RV ${s.resourceVersion}` : s.state;
      const title = [`page RV ${s.resourceVersion || '–'}`, `store RV ${storeRv ?? '–'}`, `reconnects ${s.reconnects}`,
        s.last410At ? `last 410 ${new Date(s.last410At).toLocaleTimeString()}` : 'no 410', s.error ?? ''].filter(Boolean).join(' · ');
      return el('li', { class: `chip ${stale ? 'stale' : s.state}`, 'data-type': id, 'data-state': stale ? 'stale' : s.state, title },
        el('b', {}, feed.opts.label), ' ', el('span', { class: 'state' }, state), ' ',
        el('span', { class: 'rv' }, `RV ${s.resourceVersion || '–'}${storeRv !== undefined ? ` / ${storeRv}` : ''}`),
        s.reconnects ? el('span', { class: 'reconnects' }, ` ↻${s.reconnects}`) : '');
    }));
    this.ready.textContent = this.readyState;
    this.ready.className = `ready ${this.readyState === 'ready' ? 'ok' : 'bad'}`;
  }
}
