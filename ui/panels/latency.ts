// Console panel 5: write→delivery latency of the load generator's writes, p50 / p99 / max per one-second bucket
// over the last five minutes, with deliveries per second on a second axis. Send and receipt are both
// performance.now() in this page: one clock, no skew. A dashed line marks a second in which sockets dropped.

import uPlot from 'uplot';
import { el, schedule } from '../dom';
import { summarize, type LatencySummary } from './latency-summary';

const POINTS = 300;

interface Bucket {
  samples: number[]; // the current second's; emptied once the second is summarized
  summary?: LatencySummary;
}

export class LatencyChart {
  readonly root = el('section', { class: 'panel latency', 'aria-label': 'Write to delivery latency' });
  private readonly holder = el('div', { class: 'chart' });
  private readonly buckets = new Map<number, Bucket>(); // second (epoch) → samples
  private readonly markers = new Set<number>();
  private plot: uPlot | undefined;
  points = 0; // seconds with data, for tests

  constructor() {
    this.root.append(el('div', { class: 'panel-head' }, el('h2', {}, 'Write → delivery latency'),
      el('span', { class: 'muted' }, 'from the load generator\'s writes')), this.holder);
    setInterval(() => schedule(this), 1000);
    new ResizeObserver(() => this.plot?.setSize({ width: this.width(), height: 180 })).observe(this.holder);
  }

  record(ms: number, at = Date.now()): void {
    const second = Math.floor(at / 1000);
    let b = this.buckets.get(second);
    if (!b) this.buckets.set(second, (b = { samples: [] }));
    b.samples.push(ms);
  }

  markDisconnect(at = Date.now()): void {
    this.markers.add(Math.floor(at / 1000));
  }

  private width(): number {
    return Math.max(240, this.holder.clientWidth || 480);
  }

  render(): void {
    const now = Math.floor(Date.now() / 1000);
    for (const s of this.buckets.keys()) if (s < now - POINTS) this.buckets.delete(s);
    for (const s of this.markers) if (s < now - POINTS) this.markers.delete(s);
    const xs: number[] = [];
    const p50: (number | null)[] = [];
    const p99: (number | null)[] = [];
    const max: (number | null)[] = [];
    const rate: (number | null)[] = [];
    let points = 0;
    for (let s = now - POINTS + 1; s <= now; s++) {
      xs.push(s);
      const b = this.buckets.get(s);
      const sum = b && (s < now ? (b.summary ??= summarize(b.samples)) : summarize(b.samples));
      if (b && s < now) b.samples = []; // a past second is summarized once: each render sorts only the current one
      if (!sum) {
        p50.push(null);
        p99.push(null);
        max.push(null);
        rate.push(null);
        continue;
      }
      points++;
      p50.push(sum.p50);
      p99.push(sum.p99);
      max.push(sum.max);
      rate.push(sum.count);
    }
    this.points = points;
    const data: uPlot.AlignedData = [xs, p50, p99, max, rate];
    if (this.plot) {
      this.plot.setData(data);
      return;
    }
    const markers = this.markers;
    this.plot = new uPlot({
      width: this.width(), height: 180,
      scales: { x: { time: true }, ms: { auto: true }, rate: { auto: true } },
      axes: [
        { stroke: '#8b949e', grid: { stroke: '#21262d' } },
        { scale: 'ms', label: 'ms', stroke: '#8b949e', grid: { stroke: '#21262d' } },
        { scale: 'rate', label: 'deliveries/s', side: 1, stroke: '#8b949e', grid: { show: false } },
      ],
      series: [
        {},
        { label: 'p50', scale: 'ms', stroke: '#3fb950', width: 1.5, spanGaps: false },
        { label: 'p99', scale: 'ms', stroke: '#d29922', width: 1.5, spanGaps: false },
        { label: 'max', scale: 'ms', stroke: '#f85149', width: 1, spanGaps: false },
        { label: 'deliveries/s', scale: 'rate', stroke: '#58a6ff', width: 1, dash: [4, 3], spanGaps: false },
      ],
      hooks: {
        draw: [(u) => {
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = '#f85149';
          ctx.setLineDash([3, 3]);
          for (const s of markers) {
            const x = u.valToPos(s, 'x', true);
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
          }
          ctx.restore();
        }],
      },
    }, data, this.holder);
  }
}
