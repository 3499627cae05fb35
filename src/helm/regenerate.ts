// Stages a generated chart into the Tree without losing the user's edits. The last generated version of
// every file is kept under <chart>/.opgen/; a regeneration three-way merges (base: that copy, yours: the
// file on disk, generated: the new version), the way `git merge-file` does. A region both sides changed
// differently is a conflict: it stays in the file between git's markers and is reported with its line.
import { posix } from 'node:path';
import { OpgenError } from '../diag/diagnostic.js';
import type { Tree } from '../scaffold/index.js';
import type { GeneratedChart } from './chart.js';
import { merge3 } from './merge3.js';

/** Where the last generated chart is kept, relative to the chart folder. */
export const BASE_DIR = '.opgen';

export interface Conflict {
  /** Project-relative path. */
  file: string;
  /** 1-based line of the `<<<<<<<` marker. */
  line: number;
}

export interface StageResult {
  conflicts: Conflict[];
  /** One line each: what a user would otherwise be surprised by (a kept file, a deletion respected). */
  notes: string[];
}

const MARKER_RE = /^(<<<<<<<|>>>>>>>)( |$)/m;

/**
 * Refuses a folder that holds files but is not a chart opgen generated: merging into someone else's chart
 * would rewrite it with no base to merge against.
 */
export function checkChartFolder(tree: Tree, dir: string): void {
  const files = tree.list(dir);
  if (files.length === 0) return;
  if (files.some((f) => f.startsWith(`${dir}/${BASE_DIR}/`))) return;
  throw new OpgenError(
    `${dir} exists and is not a chart opgen generated (it has no ${dir}/${BASE_DIR}/)`,
    { file: dir },
    `pass --output-dir with another folder, or move ${dir} away`,
  );
}

export function stageChart(tree: Tree, dir: string, chart: GeneratedChart, o: { force: boolean }): StageResult {
  const conflicts: Conflict[] = [];
  const notes: string[] = [];
  const at = (p: string): string => posix.join(dir, p);
  const baseOf = (p: string): string => posix.join(dir, BASE_DIR, p);

  // A file still holding the markers of the last regeneration would be merged into nonsense: resolve first.
  if (!o.force) {
    for (const p of chart.files.keys()) {
      const yours = tree.read(at(p));
      const m = yours === undefined ? null : MARKER_RE.exec(yours);
      if (m && yours !== undefined) {
        const line = yours.slice(0, m.index).split('\n').length;
        throw new OpgenError(`unresolved conflict from the last regeneration`, { file: at(p), line }, 'resolve it and delete the markers, or pass --force to take the generated file');
      }
    }
  }

  for (const [p, generated] of chart.files) {
    const yours = tree.read(at(p));
    const base = tree.read(baseOf(p));
    if (chart.writeOnce.has(p)) {
      if (yours === undefined) tree.write(at(p), generated);
      continue;
    }
    tree.write(baseOf(p), generated);
    if (o.force || yours === undefined) {
      if (yours === undefined && base !== undefined && !o.force) {
        // You deleted a generated file: that stays so (the generated version is in .opgen for reference).
        if (base !== generated) notes.push(`${at(p)}: you deleted this file; the generated version changed but it stays deleted (see ${baseOf(p)}, or pass --force)`);
        continue;
      }
      tree.write(at(p), generated);
      continue;
    }
    // A file opgen never generated before has an empty base: anything both sides wrote differently conflicts.
    // An editor that saved the file with CRLF line ends changed no line: merge without the CRs, put them back.
    const crlf = yours.includes('\r\n');
    const merged = merge3(base ?? '', crlf ? yours.replaceAll('\r\n', '\n') : yours, generated, { yours: `yours (${at(p)})`, generated: 'generated' });
    tree.write(at(p), crlf ? merged.text.replaceAll('\n', '\r\n') : merged.text);
    for (const line of merged.conflicts) conflicts.push({ file: at(p), line });
  }

  // Files the last generation wrote that this one does not (a removed CRD or webhook).
  for (const basePath of tree.list(posix.join(dir, BASE_DIR))) {
    const p = basePath.slice(posix.join(dir, BASE_DIR).length + 1);
    if (chart.files.has(p)) continue;
    const base = tree.read(basePath);
    const yours = tree.read(at(p));
    tree.delete(basePath);
    if (yours === undefined) continue;
    if (o.force || yours === base) tree.delete(at(p));
    else notes.push(`${at(p)}: no longer generated; kept because you changed it (delete it if you no longer need it)`);
  }
  return { conflicts, notes };
}
