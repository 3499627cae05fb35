// `opgen generate --check` and the Helm chart: what `opgen generate helm` would change after `opgen generate`,
// computed as that command computes it (config/default rendered by kubectl kustomize with the freshly
// generated manifests in place of the ones on disk, the chart built, then three-way merged with the chart on
// disk), so an edit of yours that the merge keeps is not "stale", and a generated change that would reach a
// file is.
import { cpSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative } from 'node:path';
import { Tree } from '../scaffold/index.js';

export type CheckKind = 'missing' | 'stale' | 'left over';
export interface CheckDifference {
  /** Absolute path. */
  path: string;
  kind: CheckKind;
  /** The command that brings the file up to date. */
  fix: string;
}

export const HELM_FIX = 'opgen generate helm';
/** PROJECT's plugins key of the chart generator (src/helm/command.ts's HELM_PLUGIN, read without importing it). */
const HELM_PLUGIN_KEY = 'helm.opgen.dev/';

/**
 * The chart folder `opgen generate helm` writes, when the project has one (PROJECT records it after the first
 * `generate helm`); undefined otherwise. Only a run of every target in the project's own folders checks the
 * chart: the chart is built from all of config/.
 */
export async function chartFolder(projectText: string): Promise<string | undefined> {
  if (!projectText.includes(HELM_PLUGIN_KEY)) return undefined;
  const { parseProject } = await import('../project/index.js');
  const { HELM_PLUGIN } = await import('../helm/command.js');
  const output = (parseProject(projectText).plugins?.[HELM_PLUGIN] as { output?: unknown } | undefined)?.output;
  return typeof output === 'string' ? output : undefined;
}

/**
 * The chart files `opgen generate helm` would create, change or delete. `generated` holds the manifests
 * `opgen generate` would write that differ from the disk (project-relative path → content, null for a
 * delete); config/ is copied to a temporary folder with them in place when there are any.
 */
export async function chartDifferences(cwd: string, chartDir: string, generated: Map<string, string | null>): Promise<CheckDifference[]> {
  const { renderKustomize } = await import('../kustomize/render.js');
  const { buildChart } = await import('../helm/chart.js');
  const { BASE_DIR, checkChartFolder, stageChart } = await import('../helm/regenerate.js');
  const { loadProject } = await import('../project/index.js');
  const tree = new Tree(cwd);
  const project = loadProject(tree);
  checkChartFolder(tree, chartDir);

  const overlay = [...generated].filter(([p]) => p.startsWith('config/'));
  let objects;
  if (overlay.length === 0) {
    objects = await renderKustomize({ cwd, dir: 'config/default' });
  } else {
    const temp = mkdtempSync(join(tmpdir(), 'opgen-check-chart-'));
    try {
      cpSync(join(cwd, 'config'), join(temp, 'config'), { recursive: true });
      for (const [p, content] of overlay) {
        if (content === null) rmSync(join(temp, p), { force: true });
        else {
          mkdirSync(dirname(join(temp, p)), { recursive: true });
          writeFileSync(join(temp, p), content);
        }
      }
      objects = await renderKustomize({ cwd: temp, dir: 'config/default' });
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  }

  stageChart(tree, chartDir, buildChart({ name: project.projectName, objects }), { force: false });
  const changes = tree.changes();
  // A chart file and its last-generated copy under .opgen/ change together: name the file you see. The copy
  // alone changes when you deleted the file (it stays deleted) and its generated version moved on.
  const baseDir = posix.join(chartDir, BASE_DIR);
  const seen = new Set(changes.filter((c) => !c.path.startsWith(`${baseDir}/`)).map((c) => c.path));
  return changes
    .filter((c) => !c.path.startsWith(`${baseDir}/`) || !seen.has(posix.join(chartDir, relative(baseDir, c.path))))
    .map((c) => ({ path: join(cwd, c.path), kind: c.kind === 'create' ? 'missing' : c.kind === 'delete' ? 'left over' : 'stale', fix: HELM_FIX }));
}
