// The scaffolded opgen-update and test-chart workflows (kubebuilder's autoupdate and test-chart for opgen
// projects): what they may do, which commands they run, that their shell scripts parse (bash -n) after
// handlebars rendered them, and that test-chart's chart steps pass on a real scaffold with the real helm.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { opgen } from '../testdata/cli.js';
import { tempDir } from '../testdata/files.js';
import { ciTool } from '../testdata/ci-tools.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('opgen-update-wf-', 'memcached-operator')));
afterEach(() => cleanup());

interface Step { uses?: string; run?: string; if?: string; env?: Record<string, string> }

describe('init: .github/workflows/opgen-update.yml', () => {
  it('runs opgen update from the recorded version to the newest and opens a pull request, with pinned actions', async () => {
    const r = await opgen(dir, 'init', '--domain', 'example.com', '--skip-install');
    expect(r.code, r.stderr).toBe(0);
    const wf = parse(readFileSync(join(dir, '.github/workflows/opgen-update.yml'), 'utf8')) as { on: Record<string, unknown>; permissions: unknown; jobs: Record<string, { steps: Step[] }> };
    expect(Object.keys(wf.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(wf.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' });
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    for (const s of steps) if (s.uses) expect(s.uses).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
    const runs = steps.flatMap((s) => (s.run ? [s.run] : []));
    expect(runs.join('\n')).toContain('npx --yes "opgen@$latest" update --from "opgen@$recorded"');
    expect(runs.join('\n')).toContain('gh pr create');
    // GitHub expressions survive handlebars.
    expect(steps.find((s) => s.env?.GH_TOKEN)?.env?.GH_TOKEN).toBe('${{ github.token }}');
    for (const run of runs) {
      const check = spawnSync('bash', ['-n'], { input: run, encoding: 'utf8' });
      expect(check.status, `${run}\n${check.stderr}`).toBe(0);
    }
    // The version it compares with is the one PROJECT records.
    const recorded = spawnSync('bash', ['-c', "sed -n 's/^cliVersion: //p' PROJECT"], { cwd: dir, encoding: 'utf8' }).stdout.trim();
    expect(recorded).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('init: .github/workflows/test-chart.yml', () => {
  it("generates the chart, lints it with helm, installs it on kind; its chart steps pass on a fresh project", async () => {
    expect((await opgen(dir, 'init', '--domain', 'example.com', '--skip-install')).code).toBe(0);
    expect((await opgen(dir, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached')).code).toBe(0);
    const wf = parse(readFileSync(join(dir, '.github/workflows/test-chart.yml'), 'utf8')) as { permissions: unknown; jobs: Record<string, { steps: Step[] }> };
    expect(wf.permissions).toEqual({ contents: 'read' });
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    for (const s of steps) if (s.uses) expect(s.uses).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
    const runs = steps.flatMap((s) => (s.run ? [s.run] : []));
    for (const run of runs) expect(spawnSync('bash', ['-n'], { input: run, encoding: 'utf8' }).status, run).toBe(0);
    const all = runs.join('\n');
    for (const c of ['kind create cluster', 'npm run helm-deploy', 'npm run helm-status']) expect(all).toContain(c);
    // The generate and lint steps, as the workflow writes them, on this project (opgen and helm from here).
    const generate = steps.find((s) => s.run?.includes('opgen generate helm'))!.run!;
    expect(generate.trim().split('\n')).toEqual(['npm run manifests', 'npx opgen generate helm']);
    expect((await opgen(dir, 'generate')).code).toBe(0);
    const chart = await opgen(dir, 'generate', 'helm');
    expect(chart.code, chart.stderr).toBe(0);
    const lint = steps.find((s) => s.run?.startsWith('helm lint'))!.run!.trim().split(' ');
    const r = spawnSync(ciTool('OPGEN_HELM', 'helm.sh'), lint.slice(1), { cwd: dir, encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
  }, 120_000);
});
