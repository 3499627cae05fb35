// mergeScaffolds' per-file rules on a real folder, with the real `git merge-file`: what stays the user's,
// what the new scaffold brings, deletions on either side, and a conflict.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitTree, Tree } from '../scaffold/index.js';
import { tempDir } from '../testdata/files.js';
import { mergeScaffolds } from './index.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('opgen-merge-')));
afterEach(() => cleanup());

const labels = { base: 'opgen 0.1.0 scaffold', theirs: 'opgen 0.2.0 scaffold' };

describe('mergeScaffolds', () => {
  it('applies each rule and leaves conflicts as git markers', () => {
    const files: Record<string, string> = {
      'same.txt': 'a\n', // templates unchanged, user changed it
      'untouched.txt': 'old\n', // user did not change it, templates did
      'both.txt': 'one\ntwo\nthree\nfour\nfive\n', // both changed, apart
      'clash.txt': 'x = 1\n', // both changed the same line
      'dropped-clean.txt': 'gone\n', // the new scaffold drops it, user never changed it
      'dropped-edited.txt': 'mine\n', // the new scaffold drops it, user changed it
    };
    for (const [p, t] of Object.entries(files)) writeFileSync(join(dir, p), t);
    writeFileSync(join(dir, 'same.txt'), 'a (edited)\n');
    writeFileSync(join(dir, 'both.txt'), 'one (user)\ntwo\nthree\nfour\nfive\n');
    writeFileSync(join(dir, 'clash.txt'), 'x = 2\n');
    writeFileSync(join(dir, 'dropped-edited.txt'), 'mine (edited)\n');
    const base = new Map([
      ['same.txt', 'a\n'],
      ['untouched.txt', 'old\n'],
      ['both.txt', 'one\ntwo\nthree\nfour\nfive\n'],
      ['clash.txt', 'x = 1\n'],
      ['dropped-clean.txt', 'gone\n'],
      ['dropped-edited.txt', 'mine\n'],
      ['deleted-by-user.txt', 'was here\n'],
    ]);
    const theirs = new Map([
      ['same.txt', 'a\n'],
      ['untouched.txt', 'new\n'],
      ['both.txt', 'one\ntwo\nthree\nfour\nfive (new)\n'],
      ['clash.txt', 'x = 3\n'],
      ['deleted-by-user.txt', 'was here, changed\n'],
      ['added.txt', 'brand new\n'],
    ]);
    const tree = new Tree(dir);
    const results = mergeScaffolds(tree, base, theirs, labels);
    expect(results).toEqual([
      { path: 'added.txt', action: 'create' },
      { path: 'both.txt', action: 'update' },
      { path: 'clash.txt', action: 'conflict', conflicts: 1 },
      { path: 'deleted-by-user.txt', action: 'kept', note: expect.stringContaining('you deleted it') },
      { path: 'dropped-clean.txt', action: 'delete' },
      { path: 'dropped-edited.txt', action: 'kept', note: expect.stringContaining('you changed it') },
      { path: 'untouched.txt', action: 'update' },
    ]);
    commitTree(tree);
    const read = (p: string) => readFileSync(join(dir, p), 'utf8');
    expect(read('same.txt')).toBe('a (edited)\n');
    expect(read('untouched.txt')).toBe('new\n');
    expect(read('both.txt')).toBe('one (user)\ntwo\nthree\nfour\nfive (new)\n');
    expect(read('clash.txt')).toBe('<<<<<<< yours\nx = 2\n=======\nx = 3\n>>>>>>> opgen 0.2.0 scaffold\n');
    expect(read('added.txt')).toBe('brand new\n');
    expect(read('dropped-edited.txt')).toBe('mine (edited)\n');
    expect(() => read('dropped-clean.txt')).toThrow();
    expect(() => read('deleted-by-user.txt')).toThrow();
  });
});
