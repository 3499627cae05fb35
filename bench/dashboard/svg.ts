// A small, deterministic SVG renderer for the dashboards' panels: Grafana's 24-column grid
// (gridPos), each panel titled as in the dashboard, time series as lines on labelled axes in the
// panel's unit, a legend with each series' last and max values (the dashboards' legend calcs), stat
// panels as their last values. The same results give the same bytes.
import { type Dashboard, legend, type PanelResult, type ResolvedVariable } from './dashboards.js';

const COL = 52; // px per grid column (24 columns)
const ROW = 36; // px per grid row
const GAP = 8;
const HEADER = 64;
// Grafana's classic palette.
const COLORS = ['#7EB26D', '#EAB839', '#6ED0E0', '#EF843C', '#E24D42', '#1F78C1', '#BA43A6', '#705DA0', '#508642', '#CCA300', '#447EBC', '#C15C17'];
const FONT = 'font-family="DejaVu Sans, Arial, Helvetica, sans-serif"';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const px = (n: number) => (Math.round(n * 10) / 10).toString();

/** Up to 3 significant digits, trailing zeros dropped. */
function num(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  const s = a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toPrecision(2);
  return s.includes('.') && !s.includes('e') ? s.replace(/\.?0+$/, '') : s;
}

function scaled(v: number, steps: [number, string][], base = ''): string {
  for (const [f, suffix] of steps) if (Math.abs(v) >= f) return `${num(v / f)}${suffix}`;
  return `${num(v)}${base}`;
}

/** A value in a Grafana unit (the ones the dashboards use). */
export function formatValue(v: number, unit = 'short'): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  switch (unit) {
    case 's':
      if (v === 0) return '0 s';
      if (Math.abs(v) >= 3600) return `${num(v / 3600)} h`;
      if (Math.abs(v) >= 60) return `${num(v / 60)} min`;
      if (Math.abs(v) >= 1) return `${num(v)} s`;
      if (Math.abs(v) >= 1e-3) return `${num(v * 1e3)} ms`;
      return `${num(v * 1e6)} µs`;
    case 'percentunit': return `${num(v * 100)}%`;
    case 'bytes': return scaled(v, [[2 ** 30, ' GiB'], [2 ** 20, ' MiB'], [2 ** 10, ' KiB']], ' B');
    case 'ops': return `${scaled(v, [[1e6, 'M'], [1e3, 'K']])} ops/s`;
    case 'reqps': return `${scaled(v, [[1e6, 'M'], [1e3, 'K']])} req/s`;
    default: return scaled(v, [[1e9, 'G'], [1e6, 'M'], [1e3, 'K']]);
  }
}

/** The unit's step between round numbers: ticks fall on whole minutes, hours, KiB, MiB, … */
function unitFactor(unit: string | undefined, hi: number): number {
  if (unit === 's') return hi >= 3600 ? 3600 : hi >= 60 ? 60 : 1;
  if (unit === 'bytes') return 1024 ** Math.max(0, Math.min(3, Math.floor(Math.log2(Math.max(hi, 1)) / 10)));
  return 1;
}

/** Round tick values covering [lo, hi]: steps of 1, 2 or 5 × 10^k (of the unit's factor). */
function ticks(lo: number, hi: number, count: number, factor = 1): number[] {
  if (factor !== 1) return ticks(lo / factor, hi / factor, count).map((t) => t * factor);
  if (hi <= lo) hi = lo + 1;
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
  return out;
}

const hhmm = (t: number, seconds: boolean) => new Date(t * 1000).toISOString().slice(11, seconds ? 19 : 16);

interface Line { name: string; color: string; points: [number, number][]; last: number; max: number }

function panelBody(r: PanelResult, x: number, y: number, w: number, h: number, start: number, end: number): string[] {
  const unit = r.panel.fieldConfig?.defaults?.unit;
  const lines: Line[] = [];
  for (const t of r.targets) {
    for (const s of t.series) {
      const finite = s.values.filter(([, v]) => Number.isFinite(v));
      lines.push({
        name: legend(t.target.legendFormat, s.metric), color: COLORS[lines.length % COLORS.length]!, points: s.values,
        last: finite.at(-1)?.[1] ?? NaN, max: finite.length ? Math.max(...finite.map(([, v]) => v)) : NaN,
      });
    }
  }
  const out: string[] = [];
  if (lines.length === 0) {
    out.push(`<text x="${px(x + w / 2)}" y="${px(y + h / 2)}" text-anchor="middle" font-size="14" fill="#8e8e8e" ${FONT}>No data</text>`);
    return out;
  }
  if (r.panel.type === 'stat') {
    const each = h / lines.length;
    lines.forEach((l, i) => {
      const cy = y + each * i + each / 2;
      out.push(`<text x="${px(x + w / 2)}" y="${px(cy + 8)}" text-anchor="middle" font-size="${Math.min(40, each * 0.5).toFixed(0)}" font-weight="bold" fill="#73BF69" ${FONT}>${esc(formatValue(l.last, unit))}</text>`);
      out.push(`<text x="${px(x + w / 2)}" y="${px(cy + 28)}" text-anchor="middle" font-size="11" fill="#555" ${FONT}>${esc(l.name)}</text>`);
    });
    return out;
  }
  // Legend rows at the bottom (as many as fit in 40% of the panel), the plot above.
  const rowH = 14;
  const maxRows = Math.max(1, Math.floor((h * 0.4) / rowH));
  const shown = lines.length > maxRows ? lines.slice(0, maxRows - 1) : lines;
  const legendH = (shown.length + (shown.length < lines.length ? 1 : 0)) * rowH + 18;
  const plot = { x: x + 64, y: y + 6, w: w - 76, h: h - legendH - 26 };
  const finite = lines.flatMap((l) => l.points.map(([, v]) => v)).filter(Number.isFinite);
  let lo = Math.min(0, ...finite);
  let hi = Math.max(...finite);
  if (hi === lo) hi = lo + 1;
  const yt = ticks(lo, hi, 4, unitFactor(unit, hi));
  lo = Math.min(lo, yt[0]!);
  hi = Math.max(hi, yt.at(-1)!);
  const sx = (t: number) => plot.x + ((t - start) / (end - start)) * plot.w;
  const sy = (v: number) => plot.y + plot.h - ((v - lo) / (hi - lo)) * plot.h;
  for (const v of yt) {
    out.push(`<line x1="${px(plot.x)}" x2="${px(plot.x + plot.w)}" y1="${px(sy(v))}" y2="${px(sy(v))}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${px(plot.x - 4)}" y="${px(sy(v) + 4)}" text-anchor="end" font-size="10" fill="#555" ${FONT}>${esc(formatValue(v, unit))}</text>`);
  }
  const span = end - start;
  const xstep = [15, 30, 60, 120, 300, 600, 900, 1800, 3600].find((s) => span / s <= 6) ?? 3600;
  for (let t = Math.ceil(start / xstep) * xstep; t <= end; t += xstep) {
    out.push(`<line x1="${px(sx(t))}" x2="${px(sx(t))}" y1="${px(plot.y)}" y2="${px(plot.y + plot.h)}" stroke="#efefef"/>`);
    out.push(`<text x="${px(sx(t))}" y="${px(plot.y + plot.h + 13)}" text-anchor="middle" font-size="10" fill="#555" ${FONT}>${hhmm(t, xstep < 60)}</text>`);
  }
  out.push(`<rect x="${px(plot.x)}" y="${px(plot.y)}" width="${px(plot.w)}" height="${px(plot.h)}" fill="none" stroke="#c8c8c8"/>`);
  for (const l of lines) {
    let d = '';
    let pen = false;
    for (const [t, v] of l.points) {
      if (!Number.isFinite(v)) { pen = false; continue; }
      d += `${pen ? 'L' : 'M'}${px(sx(t))} ${px(sy(v))}`;
      pen = true;
    }
    if (d) out.push(`<path d="${d}" fill="none" stroke="${l.color}" stroke-width="1.6"/>`);
  }
  let ly = plot.y + plot.h + 30;
  out.push(`<text x="${px(x + w - 100)}" y="${px(ly - 2)}" text-anchor="end" font-size="10" fill="#888" ${FONT}>Last</text>`);
  out.push(`<text x="${px(x + w - 10)}" y="${px(ly - 2)}" text-anchor="end" font-size="10" fill="#888" ${FONT}>Max</text>`);
  for (const l of shown) {
    ly += rowH;
    out.push(`<rect x="${px(x + 10)}" y="${px(ly - 8)}" width="12" height="3" fill="${l.color}"/>`);
    out.push(`<text x="${px(x + 28)}" y="${px(ly - 2)}" font-size="10.5" fill="#333" ${FONT}>${esc(l.name.length > 60 ? `${l.name.slice(0, 59)}…` : l.name)}</text>`);
    out.push(`<text x="${px(x + w - 100)}" y="${px(ly - 2)}" text-anchor="end" font-size="10.5" fill="#333" ${FONT}>${esc(formatValue(l.last, unit))}</text>`);
    out.push(`<text x="${px(x + w - 10)}" y="${px(ly - 2)}" text-anchor="end" font-size="10.5" fill="#333" ${FONT}>${esc(formatValue(l.max, unit))}</text>`);
  }
  if (shown.length < lines.length) {
    ly += rowH;
    out.push(`<text x="${px(x + 28)}" y="${px(ly - 2)}" font-size="10.5" fill="#888" ${FONT}>+ ${lines.length - shown.length} more series</text>`);
  }
  return out;
}

export interface RenderInfo { start: number; end: number; step: number; variables: ResolvedVariable[]; source: string }

/** The dashboard as an SVG document: its title, how the data was made, every panel at its gridPos. */
export function renderDashboard(d: Dashboard, results: PanelResult[], info: RenderInfo): string {
  const rows = Math.max(...d.panels.map((p) => p.gridPos.y + p.gridPos.h));
  const width = 24 * COL + GAP;
  const height = HEADER + rows * ROW + GAP;
  const vars = info.variables.map((v) => `$${v.name} = ${v.value === '.+' ? 'All' : v.value}`).join(', ');
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" fill="#f4f5f5"/>`,
    `<text x="${GAP}" y="24" font-size="18" font-weight="bold" fill="#222" ${FONT}>${esc(d.title)}</text>`,
    `<text x="${GAP}" y="42" font-size="11" fill="#555" ${FONT}>${esc(`${info.source}; ${new Date(info.start * 1000).toISOString().slice(0, 19).replace('T', ' ')} to ${hhmm(info.end, true)} UTC, step ${info.step} s`)}</text>`,
    `<text x="${GAP}" y="56" font-size="11" fill="#555" ${FONT}>${esc(`${vars}. Each panel shows the dashboard's own queries (query_range), variables substituted.`)}</text>`,
  ];
  for (const r of results) {
    const g = r.panel.gridPos;
    const x = GAP + g.x * COL;
    const y = HEADER + g.y * ROW;
    const w = g.w * COL - GAP;
    const h = g.h * ROW - GAP;
    out.push(`<g>`);
    out.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3" fill="#ffffff" stroke="#d8d9da"/>`);
    out.push(`<text x="${x + 10}" y="${y + 18}" font-size="12.5" font-weight="bold" fill="#222" ${FONT}>${esc(r.panel.title)}</text>`);
    out.push(...panelBody(r, x, y + 24, w, h - 28, info.start, info.end));
    out.push(`</g>`);
  }
  out.push('</svg>', '');
  return out.join('\n');
}
