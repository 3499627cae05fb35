// bench/dashboard/svg.ts, the renderer of docs/dashboard-*.svg, on made-up query results: panels where
// their gridPos puts them, titles escaped, values in the panels' units, gaps where Prometheus answered NaN,
// "No data" for an empty panel, and the same bytes for the same input.
import { describe, expect, it } from 'vitest';
import type { Dashboard, PanelResult } from '../../bench/dashboard/dashboards.js';
import { formatValue, renderDashboard } from '../../bench/dashboard/svg.js';

const panel = (id: number, type: string, title: string, unit: string, x: number, y: number) =>
  ({ id, type, title, gridPos: { x, y, w: 12, h: 8 }, fieldConfig: { defaults: { unit } }, targets: [{ expr: 'e', refId: 'A', legendFormat: '{{type}}={{status}} {{reason}}' }] });

const d: Dashboard = {
  uid: 'u', title: 'demo: conditions', templating: { list: [] },
  panels: [panel(1, 'timeseries', 'Dwell time <max>', 's', 0, 0), panel(2, 'stat', 'Operator up', 'short', 12, 0), panel(3, 'timeseries', 'Empty', 'ops', 0, 8)],
};
const start = 1_800_000_000;
const results: PanelResult[] = [
  { panel: d.panels[0]!, targets: [{ target: d.panels[0]!.targets[0]!, expr: 'e', series: [
    { metric: { type: 'Ready', status: 'False', reason: 'BackendUnavailable' }, values: [[start, 30], [start + 60, 90], [start + 120, NaN], [start + 180, 10], [start + 240, 250]] },
  ] }] },
  { panel: d.panels[1]!, targets: [{ target: d.panels[1]!.targets[0]!, expr: 'e', series: [{ metric: { type: 'up', status: '', reason: '' }, values: [[start, 1]] }] }] },
  { panel: d.panels[2]!, targets: [{ target: d.panels[2]!.targets[0]!, expr: 'e', series: [] }] },
];
const info = { start, end: start + 240, step: 60, variables: [{ name: 'kind', options: ['Gadget'], value: 'Gadget' }], source: 'test' };

describe('the dashboard renderer', () => {
  it('draws each panel at its gridPos with its title, the legend in the unit, gaps at NaN and No data when empty; same bytes twice', () => {
    const svg = renderDashboard(d, results, info);
    expect(renderDashboard(d, results, info)).toBe(svg);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="1256" height="648"/);
    expect(svg).toContain('>demo: conditions</text>');
    expect(svg).toContain('>Dwell time &lt;max&gt;</text>');
    expect(svg).toContain('<rect x="632" y="64" width="616" height="280"'); // the stat panel: x 12 of 24, y 0
    expect(svg).toContain('>Ready=False BackendUnavailable</text>');
    expect(svg).toContain('>4.17 min</text>'); // last (250 s) and max
    expect(svg).toContain('$kind = Gadget');
    const path = /<path d="([^"]*)"/.exec(svg)![1]!;
    expect(path.match(/M/g)).toHaveLength(2); // the line breaks at the NaN
    expect(svg).toContain('>No data</text>');
    expect(svg.match(/No data/g)).toHaveLength(1);
    expect(svg).toContain('>08:02</text>'); // a UTC time tick (start is 2027-01-15T08:00:00Z)
  });

  it('formats values in the units the dashboards use', () => {
    expect([0.0000991, 0.0175, 2.5, 250, 7200].map((v) => formatValue(v, 's'))).toEqual(['99.1 µs', '17.5 ms', '2.5 s', '4.17 min', '2 h']);
    expect([0, 512, 78_643_200].map((v) => formatValue(v, 'bytes'))).toEqual(['0 B', '512 B', '75 MiB']);
    expect([0.0217, 1].map((v) => formatValue(v, 'percentunit'))).toEqual(['2.17%', '100%']);
    expect([0.8, 2400].map((v) => formatValue(v, 'ops'))).toEqual(['0.8 ops/s', '2.4K ops/s']);
    expect([NaN, Infinity].map((v) => formatValue(v))).toEqual(['NaN', '+Inf']);
  });
});
