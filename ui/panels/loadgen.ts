// Console panel 6: an in-page load generator, bounded in count and time. N watchers (WebSocket, or at most 5
// HTTP streams: a browser holds 6 fetch streams per host) spread round-robin over the replicas, each watching
// the run's config maps by label; writes at R/s for D seconds (at most 64 in flight), each carrying its sequence
// number. Every receipt is timed against its send on this page's clock; at the end each watcher must have seen
// every acknowledged write exactly once and in commit (resourceVersion) order — that is completeness.

import { listAll, watch } from '../../client/index';
import { el, schedule, throttled } from '../dom';
import { replicaLabel, replicaQuery } from '../feed';
import { api, ApiFailure, type Session } from '../session';
import type { LatencyChart } from './latency';

export const LOADGEN_NS = 'loadgen';
export const RUN_LABEL = 'edgeplane.dev/loadgen';
export const SEQ_ANNOTATION = 'edgeplane.dev/seq';
const MAX_IN_FLIGHT = 64;
const OPENING = 4; // WebSocket handshakes in flight while the watchers open
const LIMITS = { watchers: [1, 200], rate: [1, 500], duration: [1, 120], size: [16, 64 * 1024] } as const;
const DRAIN_WAIT_MS = 10_000;

export interface LoadgenStats {
  running: boolean;
  runId: string;
  watchersOpen: number;
  watchers: number;
  sent: number;
  acked: number;
  conflicts: number;
  throttled: number;
  serverErrors: number;
  otherErrors: number;
  deliveries: number;
  duplicates: number;
  outOfOrder: number;
  completeness: number | undefined; // 0..1 once finished
  /** Phase times in ms on this page's clock: watchers open, writes sent and acknowledged, drain to complete. */
  phases: { openMs?: number; writeMs?: number; drainMs?: number };
}

interface WatcherState {
  replica: string;
  lastRv: number; // events must arrive in commit order (resourceVersion), not send order: writes overlap

  seen: Set<number>;
  duplicates: number;
  outOfOrder: number;
}

export class LoadGenerator {
  readonly root = el('section', { class: 'panel loadgen', 'aria-label': 'Load generator' });
  readonly stats: LoadgenStats = emptyStats();
  private readonly sentAt = new Map<number, number>();
  private readonly acked = new Set<number>();
  private abort: AbortController | undefined;
  private readonly out = el('dl', { class: 'counters' });
  private readonly counters = new Map<string, HTMLElement>();
  private readonly soon = throttled(this, 250); // counters during a run: 4 redraws a second, not one per event
  private readonly note = el('p', { class: 'muted', role: 'status' });
  private readonly inputs: Record<'watchers' | 'rate' | 'duration' | 'size', HTMLInputElement>;
  private readonly transport: HTMLSelectElement;
  private readonly startButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;

  constructor(private readonly session: Session, private readonly replicas: () => ({ location: string; index: number } | 'store')[],
    private readonly chart: LatencyChart) {
    const num = (name: keyof typeof LIMITS, value: number, label: string) => {
      const input = el('input', { type: 'number', id: `lg-${name}`, name, min: LIMITS[name][0], max: LIMITS[name][1], value, required: true });
      return { input, field: el('label', { for: `lg-${name}` }, label, input) };
    };
    const w = num('watchers', 20, 'Watchers');
    const r = num('rate', 20, 'Writes/s');
    const d = num('duration', 10, 'Seconds');
    const s = num('size', 1024, 'Bytes/object');
    this.inputs = { watchers: w.input, rate: r.input, duration: d.input, size: s.input };
    this.transport = el('select', { id: 'lg-transport', name: 'transport' }, el('option', { value: 'websocket' }, 'WebSocket'), el('option', { value: 'http' }, 'HTTP stream (≤ 5)'));
    this.startButton = el('button', { type: 'submit', class: 'primary' }, 'Start');
    this.stopButton = el('button', { type: 'button', disabled: true, onclick: () => this.stop() }, 'Stop');
    const form = el('form', { class: 'loadgen-form', onsubmit: (ev) => {
      ev.preventDefault();
      void this.start();
    } }, w.field, r.field, d.field, s.field, el('label', { for: 'lg-transport' }, 'Transport', this.transport), this.startButton, this.stopButton);
    this.root.append(el('div', { class: 'panel-head' }, el('h2', {}, 'Load generator')), form, this.out, this.note);
    this.render();
  }

  /** write→delivery time of an event of the current run, if it is one. */
  latencyOf(seq: number, receivedAt: number): number | undefined {
    const sent = this.sentAt.get(seq);
    return sent === undefined ? undefined : receivedAt - sent;
  }

  private read(name: keyof typeof LIMITS): number {
    const [lo, hi] = LIMITS[name];
    const v = Math.round(Number(this.inputs[name].value));
    return Math.min(hi, Math.max(lo, Number.isFinite(v) ? v : lo));
  }

  async start(): Promise<void> {
    if (this.stats.running) return;
    const transport = this.transport.value === 'http' ? 'http' : 'websocket';
    const watchers = transport === 'http' ? Math.min(5, this.read('watchers')) : this.read('watchers');
    const rate = this.read('rate');
    const duration = this.read('duration');
    const size = this.read('size');
    Object.assign(this.stats, emptyStats(), { running: true, runId: Math.random().toString(36).slice(2, 10), watchers });
    this.sentAt.clear();
    this.acked.clear();
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.startButton.disabled = true;
    this.stopButton.disabled = false;
    this.note.textContent = `Run ${this.stats.runId}: ${watchers} watchers, ${rate} writes/s for ${duration} s.`;
    try {
      await this.ensureNamespace();
      const selector = `${RUN_LABEL}=${this.stats.runId}`;
      const path = `/api/v1/namespaces/${LOADGEN_NS}/configmaps`;
      const { resourceVersion } = await listAll({ server: this.session.server, token: this.session.token, path, labelSelector: selector });
      const spread = this.replicas();
      const states: WatcherState[] = [];
      let t = performance.now();
      // At most OPENING handshakes at a time: Chromium delays each new WebSocket by 1–5 s × 2^pending / 65,536
      // (services/network/websocket_throttler.cc, per renderer), so 50 opened at once took 5 s; a few at a time
      // take a few milliseconds each.
      let next = 0;
      const opener = async () => {
        while (next < watchers && !signal.aborted) {
          const i = next++;
          const replica = spread[i % spread.length] ?? 'store';
          const state: WatcherState = { replica: replicaLabel(replica), lastRv: 0, seen: new Set(), duplicates: 0, outOfOrder: 0 };
          states.push(state);
          await this.watchOne(path + replicaQuery(replica), selector, resourceVersion, transport, state, signal);
        }
      };
      await Promise.all(Array.from({ length: Math.min(OPENING, watchers) }, opener));
      this.stats.phases.openMs = Math.round(performance.now() - t);
      t = performance.now();
      await this.write(path, rate, duration, size, signal);
      this.stats.phases.writeMs = Math.round(performance.now() - t);
      t = performance.now();
      await this.drain(states, signal);
      this.stats.phases.drainMs = Math.round(performance.now() - t);
      const complete = states.filter((s) => [...this.acked].every((q) => s.seen.has(q)) && s.duplicates === 0 && s.outOfOrder === 0).length;
      this.stats.completeness = states.length ? complete / states.length : 1;
      this.note.textContent = `Run ${this.stats.runId} finished: ${(this.stats.completeness * 100).toFixed(1)} % of watchers complete.`;
    } catch (e) {
      if (!signal.aborted) this.note.textContent = `Run failed: ${(e as Error).message}`;
    } finally {
      this.abort.abort();
      this.stats.running = false;
      this.startButton.disabled = false;
      this.stopButton.disabled = true;
      schedule(this);
      void this.cleanup(this.stats.runId);
    }
  }

  stop(): void {
    this.abort?.abort();
    this.note.textContent = 'Stopped.';
  }

  private async ensureNamespace(): Promise<void> {
    try {
      await api(this.session, '/api/v1/namespaces', { method: 'POST', body: JSON.stringify({ metadata: { name: LOADGEN_NS } }) });
    } catch (e) {
      if (!(e instanceof ApiFailure && e.code === 409)) throw e;
    }
  }

  /** Resolves once the watch is open; the watch itself runs until the run's signal. */
  private watchOne(path: string, selector: string, rv: string, transport: 'http' | 'websocket', state: WatcherState, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let first = true;
      void watch({
        server: this.session.server, token: this.session.token, path, labelSelector: selector, resourceVersion: rv, transport,
        signal, backoff: { initialMs: 200, maxMs: 2000 },
        onOpen: () => {
          if (first) {
            first = false;
            this.stats.watchersOpen++;
            this.soon();
            resolve();
          }
        },
        onDisconnect: () => this.chart.markDisconnect(),
        onEvent: (e) => {
          if (e.type !== 'ADDED') return;
          const seq = Number((e.object.metadata.annotations as Record<string, string> | undefined)?.[SEQ_ANNOTATION]);
          if (!Number.isInteger(seq)) return;
          const at = performance.now();
          const rv = Number(e.object.metadata.resourceVersion);
          if (state.seen.has(seq)) state.duplicates++;
          else if (rv <= state.lastRv) state.outOfOrder++;
          state.seen.add(seq);
          state.lastRv = Math.max(state.lastRv, rv);
          this.stats.deliveries++;
          const sent = this.sentAt.get(seq);
          if (sent !== undefined) this.chart.record(at - sent);
          this.soon();
        },
      }).catch(() => resolve()).finally(() => {
        if (!first) this.stats.watchersOpen--;
        this.soon();
        resolve();
      });
    });
  }

  private async write(path: string, rate: number, duration: number, size: number, signal: AbortSignal): Promise<void> {
    const total = rate * duration;
    const start = performance.now();
    const payload = 'x'.repeat(size);
    let inFlight = 0;
    const pending = new Set<Promise<void>>();
    for (let seq = 1; seq <= total && !signal.aborted; seq++) {
      const due = start + ((seq - 1) * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      while (inFlight >= MAX_IN_FLIGHT && !signal.aborted) await Promise.race(pending);
      if (signal.aborted) break;
      inFlight++;
      this.stats.sent++;
      this.sentAt.set(seq, performance.now());
      const p = this.writeOne(path, seq, payload).finally(() => {
        inFlight--;
        pending.delete(p);
        this.soon();
      });
      pending.add(p);
    }
    await Promise.all(pending);
  }

  private async writeOne(path: string, seq: number, payload: string): Promise<void> {
    const body = {
      metadata: { name: `lg-${this.stats.runId}-${seq}`, labels: { [RUN_LABEL]: this.stats.runId }, annotations: { [SEQ_ANNOTATION]: String(seq) } },
      data: { payload },
    };
    try {
      await api(this.session, path, { method: 'POST', body: JSON.stringify(body) });
      this.stats.acked++;
      this.acked.add(seq);
    } catch (e) {
      const code = e instanceof ApiFailure ? e.code : 0;
      if (code === 409) this.stats.conflicts++;
      else if (code === 429) this.stats.throttled++;
      else if (code >= 500) this.stats.serverErrors++;
      else this.stats.otherErrors++;
    }
  }

  /** Waits, bounded, until every watcher has every acknowledged write. */
  private async drain(states: WatcherState[], signal: AbortSignal): Promise<void> {
    const deadline = performance.now() + DRAIN_WAIT_MS;
    // The full check runs only once every watcher has seen at least as many as were acknowledged (O(watchers)).
    const done = () => states.every((s) => s.seen.size >= this.acked.size) && states.every((s) => [...this.acked].every((q) => s.seen.has(q)));
    while (!done() && performance.now() < deadline && !signal.aborted) await new Promise((r) => setTimeout(r, 100));
    for (const s of states) {
      this.stats.duplicates += s.duplicates;
      this.stats.outOfOrder += s.outOfOrder;
    }
  }

  private async cleanup(runId: string): Promise<void> {
    const selector = encodeURIComponent(`${RUN_LABEL}=${runId}`);
    await api(this.session, `/api/v1/namespaces/${LOADGEN_NS}/configmaps?labelSelector=${selector}`, { method: 'DELETE' }).catch(() => undefined);
  }

  render(): void {
    const s = this.stats;
    const rows: [string, string][] = [
      ['Sockets open', `${s.watchersOpen} / ${s.watchers}`], ['Writes acked', `${s.acked} / ${s.sent}`],
      ['409 / 429 / 5xx', `${s.conflicts} / ${s.throttled} / ${s.serverErrors}`], ['Deliveries', String(s.deliveries)],
      ['Completeness', s.completeness === undefined ? (s.running ? 'running…' : '–') : `${(s.completeness * 100).toFixed(1)} %`],
      ['Open / write / drain', [s.phases.openMs, s.phases.writeMs, s.phases.drainMs].map((ms) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`)).join(' / ')],
    ];
    // Patched in place: a frame during a run changes a few numbers, not the list.
    for (const [k, v] of rows) {
      let dd = this.counters.get(k);
      if (!dd) {
        this.counters.set(k, (dd = el('dd', { 'data-counter': k })));
        this.out.append(el('dt', {}, k), dd);
      }
      if (dd.textContent !== v) dd.textContent = v;
    }
    const n = Number(this.inputs.watchers.value);
    if (n > LIMITS.watchers[1]) this.note.textContent = `A page holds about 250 sockets; for ${n} watchers run: npm run bench -- --only=fanout`;
  }
}

function emptyStats(): LoadgenStats {
  return {
    running: false, runId: '', watchersOpen: 0, watchers: 0, sent: 0, acked: 0, conflicts: 0, throttled: 0, serverErrors: 0,
    otherErrors: 0, deliveries: 0, duplicates: 0, outOfOrder: 0, completeness: undefined, phases: {},
  };
}
