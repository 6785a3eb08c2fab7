// Report: a small hand-written SVG line chart (log-log), one line per system: e.g. p99 write-to-delivery
// latency against watcher count. No chart library.

export interface Series {
  name: string;
  color: string;
  dashed?: boolean;
  points: { x: number; y: number }[];
}

const W = 840;
const H = 460;
const M = { left: 70, right: 250, top: 50, bottom: 60 };

function logTicks(min: number, max: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) out.push(10 ** e);
  return out;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function lineChart(title: string, xLabel: string, yLabel: string, series: Series[], pointLabel = (x: number, y: number) => `${x}: ${y}`): string {
  const pts = series.flatMap((s) => s.points).filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.y));
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  const xMin = 10 ** Math.floor(Math.log10(Math.min(...xs, 1)));
  const xMax = 10 ** Math.ceil(Math.log10(Math.max(...xs, 10)));
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...ys, 1)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...ys, 10)));
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const sx = (x: number) => M.left + ((Math.log10(x) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * pw;
  const sy = (y: number) => M.top + ph - ((Math.log10(y) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * ph;
  const o: string[] = [];
  o.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  o.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  o.push(`<text x="${M.left + pw / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);
  for (const t of logTicks(xMin, xMax)) {
    if (t < xMin || t > xMax) continue;
    o.push(`<line x1="${sx(t)}" y1="${M.top}" x2="${sx(t)}" y2="${M.top + ph}" stroke="#e5e5e5"/>`);
    o.push(`<text x="${sx(t)}" y="${M.top + ph + 18}" text-anchor="middle">${t.toLocaleString('en-US')}</text>`);
  }
  for (const t of logTicks(yMin, yMax)) {
    if (t < yMin || t > yMax) continue;
    o.push(`<line x1="${M.left}" y1="${sy(t)}" x2="${M.left + pw}" y2="${sy(t)}" stroke="#e5e5e5"/>`);
    o.push(`<text x="${M.left - 8}" y="${sy(t) + 4}" text-anchor="end">${t >= 1 ? t.toLocaleString('en-US') : t}</text>`);
  }
  o.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  o.push(`<text x="${M.left + pw / 2}" y="${H - 18}" text-anchor="middle">${esc(xLabel)}</text>`);
  o.push(`<text transform="translate(18 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`);
  series.forEach((s, i) => {
    const p = s.points.filter((q) => q.x > 0 && q.y > 0 && Number.isFinite(q.y)).sort((a, b) => a.x - b.x);
    if (p.length) {
      const d = p.map((q, k) => `${k ? 'L' : 'M'}${sx(q.x).toFixed(1)},${sy(q.y).toFixed(1)}`).join(' ');
      o.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
      for (const q of p) o.push(`<circle cx="${sx(q.x).toFixed(1)}" cy="${sy(q.y).toFixed(1)}" r="3.5" fill="${s.color}"><title>${esc(`${s.name}: ${pointLabel(q.x, q.y)}`)}</title></circle>`);
    }
    const ly = M.top + 10 + i * 22;
    const lx = M.left + pw + 16;
    o.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    o.push(`<text x="${lx + 30}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  o.push('</svg>');
  return `${o.join('\n')}\n`;
}
