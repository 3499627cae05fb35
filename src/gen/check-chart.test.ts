// `opgen generate --check` covers the Helm chart `opgen generate helm` wrote: a scaffolded project,
// generated with its chart (real kubectl kustomize), checked after each step a user takes. Edits the chart
// keeps on regeneration (three-way merge, docs/helm.md) are not flagged; a generated change that would reach a
// chart file is, with the command that brings it. --check writes nothing.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opgen, opgenOk } from '../testdata/cli.js';
import { snapshot, tempDir } from '../testdata/files.js';

const CRD = 'config/crd/bases/cache.example.com_memcacheds.yaml';
const CHART_CRD = 'dist/chart/templates/crd/memcacheds.cache.example.com.yaml';
const TYPES = 'src/api/v1alpha1/memcached-types.ts';

let project: string;
let cleanup: () => void;
const read = (p: string): string => readFileSync(join(project, p), 'utf8');
function edit(p: string, from: string, to: string): void {
  const text = read(p);
  expect(text, p).toContain(from);
  writeFileSync(join(project, p), text.replace(from, to));
}

/** `opgen generate --check`, asserting it changed no file. */
async function check(): Promise<{ code: number; lines: string[] }> {
  const before = snapshot(project);
  const r = await opgen(project, 'generate', '--check');
  expect(snapshot(project)).toEqual(before);
  return { code: r.code, lines: (r.stdout + r.stderr).split('\n').filter((l) => l !== '') };
}

beforeAll(async () => {
  ({ dir: project, cleanup } = tempDir('opgen-check-chart-', 'memcached-operator'));
  await opgenOk(project, 'init', '--domain', 'example.com', '--skip-install');
  await opgenOk(project, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
  await opgenOk(project, 'generate');
  await opgenOk(project, 'generate', 'helm');
}, 300_000);
afterAll(() => cleanup());

describe('opgen generate --check with a Helm chart', () => {
  it('passes on a project just generated, from the record and from a full run', async () => {
    expect(await check()).toEqual({ code: 0, lines: [] });
    // A source whose hash changed makes --check regenerate in full (nothing in the output changes).
    edit('src/controller/memcached-controller.ts', '/** Reconciles Memcached objects. */', '/** Reconciles Memcached objects (edited). */');
    expect(await check()).toEqual({ code: 0, lines: [] });
  }, 120_000);

  it('names the chart CRD a type change would reach, with the commands in order, and only the chart once config/ is generated', async () => {
    edit(TYPES, '  foo?: string;', '  foo?: string;\n  /** size of the cache */\n  size?: number;');
    expect(await check()).toEqual({
      code: 1,
      lines: [
        `stale: ${CRD} (run opgen generate)`,
        `stale: ${CHART_CRD} (run opgen generate helm)`,
        '2 generated files are out of date: run opgen generate, then opgen generate helm',
      ],
    });
    await opgenOk(project, 'generate');
    // The record now matches config/: the chart is rendered from the disk.
    expect(await check()).toEqual({ code: 1, lines: [`stale: ${CHART_CRD} (run opgen generate helm)`, '1 generated file is out of date: run opgen generate helm'] });
    await opgenOk(project, 'generate', 'helm');
    expect(await check()).toEqual({ code: 0, lines: [] });
  }, 180_000);

  it('does not flag edits the chart keeps (a template, values, Chart.yaml, a deleted file), and still flags a generated change next to them', async () => {
    edit('dist/chart/templates/rbac/manager-role.yaml', 'rules:\n', 'rules:\n- apiGroups: [""]\n  resources: [configmaps]\n  verbs: [get]\n');
    edit('dist/chart/values.yaml', 'replicas: 1', 'replicas: 3');
    edit('dist/chart/Chart.yaml', 'version: 0.1.0', 'version: 0.2.0');
    rmSync(join(project, 'dist/chart/templates/prometheus/controller-manager-metrics-monitor.yaml'));
    expect(await check()).toEqual({ code: 0, lines: [] });

    // A new field: the CRD template changes, the edited files do not (their generated text is the same).
    edit(TYPES, '  size?: number;', '  size?: number;\n  /** image to run */\n  image?: string;');
    await opgenOk(project, 'generate');
    expect(await check()).toEqual({ code: 1, lines: [`stale: ${CHART_CRD} (run opgen generate helm)`, '1 generated file is out of date: run opgen generate helm'] });
    await opgenOk(project, 'generate', 'helm');
    expect(read('dist/chart/values.yaml')).toContain('replicas: 3');
    expect(read('dist/chart/templates/rbac/manager-role.yaml')).toContain('resources: [configmaps]');
    expect(await check()).toEqual({ code: 0, lines: [] });
  }, 180_000);

  it('flags a chart file generate helm would bring back, and one it would merge into', async () => {
    // A changed RBAC marker reaches manager-role.yaml, which carries the edit above: merged, so stale.
    edit('src/controller/memcached-controller.ts', 'verbs=create;patch', 'verbs=create;patch;update');
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.lines).toContain('stale: dist/chart/templates/rbac/manager-role.yaml (run opgen generate helm)');
    expect(r.lines).toContain('stale: config/rbac/role.yaml (run opgen generate)');
    // The chart file deleted earlier stays deleted on regeneration, so it is not missing.
    expect(r.lines.filter((l) => l.includes('metrics-monitor'))).toEqual([]);
  }, 120_000);
});
