// Console panel 7: where the replicas are. Natural Earth land (world-atlas 110m) on a canvas with d3-geo; a dot
// per replica at its location hint's representative city, radius ∝ √watchers, colour by lag; arcs from the
// canonical store; a "you" dot from request.cf. Hovering a dot (or focusing its entry in the list below the map)
// shows its numbers.

import { geoNaturalEarth1, geoPath, geoGraticule10, geoInterpolate, type GeoProjection } from 'd3-geo';
import { feature } from 'topojson-client';
import type { Topology as TopoJson, GeometryCollection } from 'topojson-specification';
import { el, schedule } from '../dom';
import { lagClass, type Topology } from './topology';
import { HINT_COORDINATES } from '../locations';

const COLOURS: Record<string, string> = { 'lag-ok': '#3fb950', 'lag-warn': '#d29922', 'lag-bad': '#f85149' };

export interface MapDot {
  replica: string; // location#index
  location: string;
  x: number;
  y: number;
  r: number;
  watchers: number;
  lag: number;
}

export class WorldMap {
  readonly root = el('section', { class: 'panel map', 'aria-label': 'World map of replicas' });
  private readonly canvas = el('canvas', { role: 'img', 'aria-label': 'Map of replica locations' });
  private readonly tip = el('div', { class: 'tip', role: 'tooltip', hidden: true });
  private readonly legend = el('ul', { class: 'map-list' });
  private land: GeoJSON.FeatureCollection | GeoJSON.Feature | undefined;
  private projection: GeoProjection | undefined;
  dots: MapDot[] = [];
  you: { x: number; y: number } | undefined;
  private youCoords: [number, number] | undefined;
  canonical: string | undefined;

  constructor(private readonly topology: Topology) {
    this.root.append(el('div', { class: 'panel-head' }, el('h2', {}, 'Replicas around the world')),
      el('div', { class: 'map-wrap' }, this.canvas, this.tip), this.legend);
    this.canvas.addEventListener('mousemove', (ev) => this.hover(ev));
    this.canvas.addEventListener('mouseleave', () => (this.tip.hidden = true));
    topology.onUpdate(() => schedule(this));
    new ResizeObserver(() => schedule(this)).observe(this.canvas);
    void fetch('/ui/land-110m.json').then((r) => r.json()).then((topo: TopoJson) => {
      this.land = feature(topo, topo.objects.land as GeometryCollection);
      schedule(this);
    });
  }

  setYou(lon: number | null, lat: number | null): void {
    if (lon !== null && lat !== null && Number.isFinite(lon) && Number.isFinite(lat)) this.youCoords = [lon, lat];
  }

  setCanonical(location: string | undefined): void {
    this.canonical = location;
  }

  render(): void {
    const width = this.canvas.clientWidth || 480;
    const height = Math.round(width * 0.52);
    const ratio = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(width * ratio)) {
      this.canvas.width = Math.round(width * ratio);
      this.canvas.height = Math.round(height * ratio);
      this.canvas.style.height = `${height}px`;
    }
    const ctx = this.canvas.getContext('2d')!;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    const projection = geoNaturalEarth1().fitExtent([[4, 4], [width - 4, height - 4]], { type: 'Sphere' });
    this.projection = projection;
    const path = geoPath(projection, ctx);
    ctx.beginPath();
    path(geoGraticule10());
    ctx.strokeStyle = '#21262d';
    ctx.lineWidth = 0.5;
    ctx.stroke();
    if (this.land) {
      ctx.beginPath();
      path(this.land);
      ctx.fillStyle = '#30363d';
      ctx.fill();
    }
    this.dots = this.collectDots(projection);
    const origin = this.canonical ? HINT_COORDINATES[this.canonical] : undefined;
    if (origin) {
      for (const d of this.dots) {
        const to = HINT_COORDINATES[d.location];
        if (!to || d.location === this.canonical) continue;
        const arc = geoInterpolate(origin, to);
        ctx.beginPath();
        path({ type: 'LineString', coordinates: Array.from({ length: 33 }, (_, i) => arc(i / 32)) });
        ctx.strokeStyle = 'rgba(88,166,255,0.55)';
        ctx.lineWidth = 1.2;
        ctx.stroke();
      }
    }
    for (const d of this.dots) {
      ctx.beginPath();
      ctx.arc(d.x, d.y, d.r, 0, 2 * Math.PI);
      ctx.fillStyle = COLOURS[lagClass(d.lag)]!;
      ctx.globalAlpha = 0.85;
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.strokeStyle = '#0d1117';
      ctx.stroke();
    }
    this.you = undefined;
    if (this.youCoords) {
      const p = projection(this.youCoords);
      if (p) {
        this.you = { x: p[0], y: p[1] };
        ctx.beginPath();
        ctx.arc(p[0], p[1], 4, 0, 2 * Math.PI);
        ctx.fillStyle = '#f0f6fc';
        ctx.fill();
        ctx.font = '11px system-ui, sans-serif';
        ctx.fillText('you', p[0] + 6, p[1] + 4);
      }
    }
    this.legend.replaceChildren(...this.dots.map((d) => el('li', { tabindex: '0', 'data-replica': d.replica },
      `${d.replica}: ${d.watchers} watchers, lag ${d.lag} rev`)));
    if (this.dots.length === 0) this.legend.replaceChildren(el('li', { class: 'muted' }, 'No replica has subscribers yet.'));
  }

  /** One dot per replica location#index, summed over resource types (watchers) and worst lag. */
  private collectDots(projection: GeoProjection): MapDot[] {
    const by = new Map<string, { location: string; watchers: number; lag: number }>();
    for (const t of this.topology.latest?.types ?? []) {
      for (const r of t.replicas) {
        const k = `${r.location}#${r.index}`;
        const d = by.get(k) ?? { location: r.location, watchers: 0, lag: 0 };
        d.watchers += r.watchers;
        d.lag = Math.max(d.lag, r.lag);
        by.set(k, d);
      }
    }
    const dots: MapDot[] = [];
    const perLocation = new Map<string, number>();
    for (const [replica, d] of [...by].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const coords = HINT_COORDINATES[d.location];
      if (!coords) continue;
      const p = projection(coords);
      if (!p) continue;
      // Replicas sharing a location are fanned out a little so each stays visible.
      const nth = perLocation.get(d.location) ?? 0;
      perLocation.set(d.location, nth + 1);
      dots.push({ replica, location: d.location, x: p[0] + nth * 7, y: p[1] - nth * 4, r: 3 + 2 * Math.sqrt(d.watchers), watchers: d.watchers, lag: d.lag });
    }
    return dots;
  }

  private hover(ev: MouseEvent): void {
    const rect = this.canvas.getBoundingClientRect();
    const x = ev.clientX - rect.left;
    const y = ev.clientY - rect.top;
    const hit = this.dots.find((d) => Math.hypot(d.x - x, d.y - y) <= d.r + 3);
    if (!hit) {
      this.tip.hidden = true;
      return;
    }
    this.tip.hidden = false;
    this.tip.textContent = `${hit.replica}: ${hit.watchers} watchers, lag ${hit.lag} revisions`;
    this.tip.style.left = `${x + 10}px`;
    this.tip.style.top = `${y + 10}px`;
  }

  projected(lon: number, lat: number): [number, number] | undefined {
    return this.projection?.([lon, lat]) ?? undefined;
  }
}
