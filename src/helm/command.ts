// `opgen generate helm`: renders config/default with kubectl kustomize, builds the chart and merges it
// with the chart on disk (see regenerate.ts). Conflicts are written into the files, between git's
// markers, reported one line each and make the exit code 1, as `git merge` does; everything else that
// goes wrong writes nothing.
import { readdirSync, rmdirSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import type { CommandContext } from '../common/command-context.js';
import { OpgenError } from '../diag/diagnostic.js';
import { renderKustomize } from '../kustomize/render.js';
import { loadProject, saveProject } from '../project/index.js';
import { commitTree, Tree } from '../scaffold/index.js';
import { buildChart } from './chart.js';
import { BASE_DIR, checkChartFolder, stageChart } from './regenerate.js';

/** The PROJECT plugins key, after kubebuilder's `helm.kubebuilder.io/v2-alpha`. */
export const HELM_PLUGIN = 'helm.opgen.dev/v1-alpha';
export const DEFAULT_CHART_DIR = 'dist/chart';

export interface GenerateHelmOptions {
  /** Default: the folder PROJECT records, else dist/chart. */
  outputDir?: string;
  force: boolean;
  dryRun: boolean;
}

export async function generateHelmCommand(ctx: CommandContext, o: GenerateHelmOptions): Promise<number> {
  const tree = new Tree(ctx.cwd);
  const project = loadProject(tree);
  const recorded = (project.plugins?.[HELM_PLUGIN] as { output?: unknown } | undefined)?.output;
  const requested = o.outputDir ?? (typeof recorded === 'string' ? recorded : DEFAULT_CHART_DIR);
  const dir = relative(ctx.cwd, resolve(ctx.cwd, requested)).replaceAll('\\', '/');
  if (dir === '' || dir.startsWith('..') || posix.isAbsolute(dir)) {
    throw new OpgenError(`'${requested}' is not a folder inside the project`, { flag: '--output-dir' }, 'pass a folder such as dist/chart');
  }
  checkChartFolder(tree, dir);
  const objects = await renderKustomize({ cwd: ctx.cwd, dir: 'config/default' });
  const chart = buildChart({ name: project.projectName, objects });
  const { conflicts, notes } = stageChart(tree, dir, chart, { force: o.force });
  if (recorded !== dir) {
    project.plugins = { ...project.plugins, [HELM_PLUGIN]: { output: dir } };
    saveProject(tree, project);
  }
  // The copies under .opgen/ change with every generated file; one line for them instead of one each.
  let baseCopies = 0;
  const changes = commitTree(tree, { dryRun: o.dryRun, out: (line) => (line.includes(`${dir}/${BASE_DIR}/`) ? baseCopies++ : ctx.out(line)) });
  if (baseCopies > 0) ctx.out(`(and ${baseCopies} last-generated cop${baseCopies === 1 ? 'y' : 'ies'} under ${dir}/${BASE_DIR}/)`);
  if (!o.dryRun) removeEmptiedFolders(ctx.cwd, dir, changes.filter((c) => c.kind === 'delete').map((c) => c.path));
  for (const n of notes) ctx.err(n);
  for (const c of conflicts) {
    ctx.err(`${c.file}:${c.line}: conflict: your edit and the generated change overlap; keep what you want between <<<<<<< and >>>>>>> and delete the markers (or pass --force to take the generated file)`);
  }
  if (o.dryRun) ctx.out(changes.length === 0 ? 'dry run: nothing would change' : 'dry run: nothing was written');
  return conflicts.length > 0 ? 1 : 0;
}

/** A chart folder whose last file was deleted goes too (templates/cert-manager after a switch to --cert-provider self). */
function removeEmptiedFolders(cwd: string, chartDir: string, deleted: string[]): void {
  for (const path of deleted) {
    for (let d = posix.dirname(path); d !== chartDir && d.startsWith(`${chartDir}/`); d = posix.dirname(d)) {
      try {
        if (readdirSync(join(cwd, d)).length > 0) break;
        rmdirSync(join(cwd, d));
      } catch {
        break; // already gone
      }
    }
  }
}
