// merge3 judged by `git merge-file` (the peer that defines what a three-way text merge gives): the same
// merged text and the same number of conflicts, on hand-written chart edits and on seeded random edits.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { merge3 } from './merge3.js';

const dir = mkdtempSync(join(tmpdir(), 'opgen-merge3-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function gitMerge(base: string, yours: string, generated: string): { text: string; conflicts: number } {
  writeFileSync(join(dir, 'base'), base);
  writeFileSync(join(dir, 'yours'), yours);
  writeFileSync(join(dir, 'generated'), generated);
  try {
    const text = execFileSync('git', ['merge-file', '-p', '-L', 'yours', '-L', 'base', '-L', 'generated', 'yours', 'base', 'generated'], { cwd: dir, encoding: 'utf8' });
    return { text, conflicts: 0 };
  } catch (err) {
    const e = err as { status: number; stdout: string };
    if (e.status < 0 || e.status > 127) throw err;
    return { text: e.stdout, conflicts: e.status };
  }
}

function expectLikeGit(base: string, yours: string, generated: string): ReturnType<typeof merge3> {
  const ours = merge3(base, yours, generated);
  const git = gitMerge(base, yours, generated);
  expect(ours.text).toBe(git.text);
  expect(ours.conflicts.length).toBe(git.conflicts);
  return ours;
}

const values = ['manager:', '  image:', '    repository: controller', '    tag: latest', '  replicas: 1', '  args:', '  - --leader-elect', 'rbac:', '  namespaced: false', 'metrics:', '  enabled: true', '  port: 8443', ''].join('\n');

describe('merge3, like git merge-file', () => {
  it('keeps a user edit and a generated change in different places', () => {
    const yours = values.replace('replicas: 1', 'replicas: 3');
    const generated = values.replace('  port: 8443\n', '  port: 8443\n  secure: true\n');
    const r = expectLikeGit(values, yours, generated);
    expect(r.conflicts).toEqual([]);
    expect(r.text).toContain('replicas: 3');
    expect(r.text).toContain('secure: true');
  });

  it('leaves a conflicting edit in the file between markers and reports its line', () => {
    const yours = values.replace('tag: latest', 'tag: v1.2.3');
    const generated = values.replace('tag: latest', 'tag: "0.2.0"');
    const r = expectLikeGit(values, yours, generated);
    expect(r.conflicts).toEqual([4]);
    expect(r.text.split('\n').slice(3, 8)).toEqual(['<<<<<<< yours', '    tag: v1.2.3', '=======', '    tag: "0.2.0"', '>>>>>>> generated']);
  });

  it('takes a change made alike on both sides once; deletions on either side; additions at the ends', () => {
    expectLikeGit(values, values.replace('port: 8443', 'port: 9443'), values.replace('port: 8443', 'port: 9443'));
    expectLikeGit(values, values.replace('rbac:\n  namespaced: false\n', ''), values.replace('  replicas: 1', '  replicas: 2'));
    expectLikeGit(values, `# mine\n${values}extra: 1\n`, values.replace('metrics:', 'metrics: # generated'));
    expectLikeGit(values, values.slice(0, -1), values.replace('manager:', 'manager: # x'));
  });

  // Lines are unique, as in a chart's files: with repeated lines any of several alignments is a correct
  // merge, and git's (Myers, with its heuristics) is not the one a plain LCS picks.
  it('agrees with git on seeded random edits of both sides', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let fresh = 0;
    const line = (): string => `key${fresh++}: ${rand(100)}`;
    const edit = (lines: string[]): string[] => {
      const out = [...lines];
      for (let k = 0, n = 1 + rand(3); k < n; k++) {
        const at = rand(out.length + 1);
        const op = rand(3);
        if (op === 0) out.splice(at, 0, line());
        else if (op === 1) out.splice(at, 1);
        else out.splice(at, 1, line());
      }
      return out;
    };
    let conflicted = 0;
    for (let round = 0; round < 150; round++) {
      const base = Array.from({ length: 4 + rand(12) }, line);
      const r = expectLikeGit(`${base.join('\n')}\n`, `${edit(base).join('\n')}\n`, `${edit(base).join('\n')}\n`);
      if (r.conflicts.length > 0) conflicted++;
    }
    expect(conflicted).toBeGreaterThan(10); // the corpus exercises conflicts, not only clean merges
  });
});
