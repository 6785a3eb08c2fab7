// Console: replica lag in milliseconds, measured black-box on one browser clock. One watch on config maps at
// the canonical store and one at each replica; for every resourceVersion both deliver, lag = arrival at the
// replica − arrival at the store. The median of the last LAG_SAMPLES is shown.

import { watch } from '../../client/index';
import { replicaQuery } from '../feed';
import type { Session } from '../session';

const LAG_SAMPLES = 50;
const PATH = '/api/v1/configmaps';

export class LagProbe {
  private readonly storeArrivals = new Map<string, number>();
  private readonly samples = new Map<string, number[]>();
  private readonly pending = new Map<string, Map<string, number>>(); // replica → rv → arrival (before the store's)
  private readonly abort = new AbortController();

  constructor(private readonly session: Session, replicas: { location: string; index: number }[], fromRv: string) {
    this.follow('store', 'store', fromRv);
    for (const r of replicas) this.follow(`${r.location}#${r.index}`, r, fromRv);
  }

  lagMs(replica: string): number | undefined {
    const s = this.samples.get(replica);
    if (!s?.length) return undefined;
    const sorted = [...s].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  }

  stop(): void {
    this.abort.abort();
  }

  private follow(name: string, replica: { location: string; index: number } | 'store', fromRv: string): void {
    void watch({
      server: this.session.server, token: this.session.token, path: PATH + replicaQuery(replica), transport: 'websocket',
      resourceVersion: fromRv, allowWatchBookmarks: true, signal: this.abort.signal, backoff: { initialMs: 500, maxMs: 5000 },
      onEvent: (e) => {
        if (e.type === 'BOOKMARK') return;
        const rv = e.object.metadata.resourceVersion ?? '';
        this.arrived(name, rv, performance.now());
      },
    }).catch(() => undefined);
  }

  private arrived(name: string, rv: string, at: number): void {
    if (name === 'store') {
      this.storeArrivals.set(rv, at);
      if (this.storeArrivals.size > 500) this.storeArrivals.delete(this.storeArrivals.keys().next().value!);
      for (const [replica, waiting] of this.pending) {
        const t = waiting.get(rv);
        if (t !== undefined) {
          this.sample(replica, t - at);
          waiting.delete(rv);
        }
      }
      return;
    }
    const storeAt = this.storeArrivals.get(rv);
    if (storeAt !== undefined) return this.sample(name, at - storeAt);
    // The replica was first (it can be, by scheduling): keep it until the store's copy arrives.
    let waiting = this.pending.get(name);
    if (!waiting) this.pending.set(name, (waiting = new Map()));
    waiting.set(rv, at);
    if (waiting.size > 500) waiting.delete(waiting.keys().next().value!);
  }

  private sample(replica: string, ms: number): void {
    let s = this.samples.get(replica);
    if (!s) this.samples.set(replica, (s = []));
    s.push(ms);
    if (s.length > LAG_SAMPLES) s.shift();
  }
}
