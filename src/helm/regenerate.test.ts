// stageChart on a Tree over a temp folder: the merge of a regenerated chart file by file (the command
// around it, with helm, is tested in test/helm).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Tree } from '../scaffold/index.js';
import type { GeneratedChart } from './chart.js';
import { stageChart } from './regenerate.js';

let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'opgen-helm-stage-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

function put(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const chart = (files: Record<string, string>): GeneratedChart => ({ files: new Map(Object.entries(files)), writeOnce: new Set(['Chart.yaml']) });
const base = 'a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\nh: 8\ni: 9\n';

describe('stageChart', () => {
  it('merges a file saved with CRLF line ends line by line and keeps its CRLFs', () => {
    put('chart/.opgen/values.yaml', base);
    put('chart/values.yaml', base.replace('a: 1', 'a: 10').replaceAll('\n', '\r\n'));
    const tree = new Tree(root);
    const r = stageChart(tree, 'chart', chart({ 'values.yaml': base.replace('e: 5', 'e: 50') }), { force: false });
    expect(r.conflicts).toEqual([]);
    expect(tree.read('chart/values.yaml')).toBe(base.replace('a: 1', 'a: 10').replace('e: 5', 'e: 50').replaceAll('\n', '\r\n'));
    expect(tree.read('chart/.opgen/values.yaml')).toBe(base.replace('e: 5', 'e: 50'));
  });

  it('reports each conflict at its marker line, and treats a file opgen never generated as an edit of an empty one', () => {
    put('chart/.opgen/values.yaml', base);
    put('chart/values.yaml', base.replace('b: 2', 'b: 20').replace('h: 8', 'h: 80'));
    put('chart/templates/extra.yaml', 'mine: true\n');
    const tree = new Tree(root);
    const r = stageChart(tree, 'chart', chart({ 'values.yaml': base.replace('b: 2', 'b: 21').replace('h: 8', 'h: 81'), 'templates/extra.yaml': 'theirs: true\n', 'Chart.yaml': 'name: x\n' }), { force: false });
    const merged = tree.read('chart/values.yaml')!.split('\n');
    const markers = merged.flatMap((l, i) => (l.startsWith('<<<<<<<') ? [i + 1] : []));
    // Two conflicts (more than three lines apart, so git's simplification keeps them apart).
    expect(markers).toEqual([2, 12]);
    expect(merged.slice(11, 16)).toEqual(['<<<<<<< yours (chart/values.yaml)', 'h: 80', '=======', 'h: 81', '>>>>>>> generated']);
    expect(r.conflicts).toEqual([
      { file: 'chart/values.yaml', line: 2 },
      { file: 'chart/values.yaml', line: 12 },
      { file: 'chart/templates/extra.yaml', line: 1 },
    ]);
    expect(tree.read('chart/templates/extra.yaml')).toBe('<<<<<<< yours (chart/templates/extra.yaml)\nmine: true\n=======\ntheirs: true\n>>>>>>> generated\n');
    // Chart.yaml: written because it was missing, and never given a merge base.
    expect(tree.read('chart/Chart.yaml')).toBe('name: x\n');
    expect(tree.read('chart/.opgen/Chart.yaml')).toBeUndefined();
  });
});
