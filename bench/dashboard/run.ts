// bench/dashboard: the images of docs/observability.md. Makes a project with the real commands (init,
// create api Gadget, edit --plugins grafana, generate), starts a kube-apiserver + etcd (envtest) with its
// CRD, runs the Gadget operator (operator.ts) through its scenario while a real Prometheus
// (.ci/prometheus.sh) scrapes its /metrics the way the project's ServiceMonitor has it scraped, then asks
// Prometheus (query_range) every query of both dashboards, variables resolved as Grafana does, and
// renders each dashboard to an SVG (svg.ts). Fails when a panel's query or a variable returns nothing.
// Usage (via `bash bench/dashboard/run.sh -- <flags>`): --seconds 240 --scrape-interval 5 --step 5 --out docs
// --save <file> also writes what Prometheus answered; --from <file> renders that again, running nothing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Dashboard, PanelResult } from './dashboards.js';
import { projectName } from './project.js';
import { emptyQueries, queryDashboards, runSession } from './session.js';
import { renderDashboard, type RenderInfo } from './svg.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '240' },
    'scrape-interval': { type: 'string', default: '5' },
    step: { type: 'string', default: '5' },
    out: { type: 'string', default: join(repo, 'docs') },
    save: { type: 'string' },
    from: { type: 'string' },
  },
});

interface Rendered { file: string; dashboard: Dashboard; results: PanelResult[]; info: RenderInfo }
function write(r: Rendered): void {
  const out = join(resolve(args.out), `dashboard-${basename(r.file, '.json')}.svg`);
  writeFileSync(out, renderDashboard(r.dashboard, r.results, r.info));
  console.log(`wrote ${out}`);
}
if (args.from) {
  // JSON has no NaN or ±Inf: they were saved as null, and are gaps either way.
  const saved = JSON.parse(readFileSync(args.from, 'utf8'), (_, v: unknown) => (v === null ? NaN : v)) as Rendered[];
  for (const r of saved) write(r);
  process.exit(0);
}

const seconds = Number(args.seconds);
const scrapeInterval = Number(args['scrape-interval']);
const step = Number(args.step);
for (const [flag, v] of [['--seconds', seconds], ['--scrape-interval', scrapeInterval], ['--step', step]] as const) {
  if (!(v > 0)) throw new Error(`${flag}: a positive number of seconds, got ${String(v)}`);
}

const prometheusBin = process.env.OPGEN_PROMETHEUS
  ?? execFileSync('bash', [join(repo, '.ci/prometheus.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
const version = execFileSync(prometheusBin, ['--version'], { encoding: 'utf8' }).split('\n')[0]!.replace(/^prometheus, version (\S+).*/, '$1');

const work = mkdtempSync(join(tmpdir(), 'opgen-dashboard-'));
const opgen = async (cwd: string, ...argv: string[]) => {
  execFileSync(process.execPath, [join(repo, 'bin/opgen.js'), ...argv], { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
};
console.log(`making ${projectName} (opgen init, create api, edit --plugins grafana, generate) in ${work}; then the scenario, ${seconds} s, scraped by Prometheus ${version} every ${scrapeInterval} s`);
const session = await runSession({ work, prometheusBin, seconds, scrapeIntervalSeconds: scrapeInterval, opgen });
try {
  const runs = await queryDashboards(session, step);
  const rendered: Rendered[] = [];
  for (const r of runs) {
    for (const p of r.results) for (const t of p.targets) console.log(`${basename(r.file)} "${p.panel.title}" ${t.target.refId}: ${t.series.length} series`);
    const info = { start: session.start, end: session.end, step, variables: r.variables, source: `Prometheus ${version} (query_range), scraping a ${projectName} manager (@opgen/runtime, envtest) every ${scrapeInterval} s` };
    rendered.push({ file: r.file, dashboard: r.dashboard, results: r.results, info });
    write(rendered.at(-1)!);
  }
  if (args.save) writeFileSync(args.save, JSON.stringify(rendered));
  const empty = emptyQueries(runs);
  if (empty.length) {
    console.error(`queries that returned no series:\n  ${empty.join('\n  ')}`);
    process.exitCode = 1;
  }
} finally {
  await session.stop();
  rmSync(work, { recursive: true, force: true });
}
