// mergeScaffolds' per-file rules on a real folder, with the real `git merge-file`: what stays the user's,
// what the new scaffold brings, deletions on either side, a conflict, JSON files merged by structure
// (never with markers); and replayCommands reproducing a project's scaffold.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitTree, Tree } from '../scaffold/index.js';
import { loadProject } from '../project/index.js';
import { opgenOk } from '../testdata/cli.js';
import { snapshot, tempDir } from '../testdata/files.js';
import { mergeScaffolds, replayCommands } from './index.js';

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
      { path: 'clash.txt', action: 'conflict', conflicts: 1, note: 'resolve the <<<<<<< ======= >>>>>>> markers' },
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

  it("merges package.json by structure: the versions you installed win, the new scaffold's scripts and dependencies are added, no markers", () => {
    const base = { name: 'op', scripts: { build: 'tsc', start: 'node dist/main.js' }, dependencies: { '@opgen/runtime': '0.1.0' }, devDependencies: { opgen: '0.1.0', typescript: '~5.8.0', gone: '^1.0.0' } };
    const theirs = { name: 'op', scripts: { build: 'tsc', start: 'node --enable-source-maps dist/main.js', dev: 'opgen dev' }, dependencies: { '@opgen/runtime': '0.2.0' }, devDependencies: { opgen: '0.2.0', typescript: '~5.9.3', vitest: '4.1.12' } };
    // What `npm install --save-dev ./opgen-0.2.0.tgz ./opgen-runtime-0.2.0.tgz` leaves: both in
    // devDependencies as file: specs; and a script of the user's.
    // (npm drops the emptied dependencies section.)
    const ours = { name: 'op', scripts: { build: 'tsc', start: 'node dist/main.js', 'user:hello': 'echo hello' }, devDependencies: { '@opgen/runtime': 'file:../opgen-runtime-0.2.0.tgz', gone: '^1.0.0', opgen: 'file:../opgen-0.2.0.tgz', typescript: '~5.8.0' } };
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(ours, null, 2)}\n`);
    const tree = new Tree(dir);
    const results = mergeScaffolds(tree, new Map([['package.json', JSON.stringify(base, null, 2)]]), new Map([['package.json', JSON.stringify(theirs, null, 2)]]), labels);
    expect(results).toEqual([{ path: 'package.json', action: 'update' }]);
    commitTree(tree);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).toEqual({
      name: 'op',
      scripts: { build: 'tsc', start: 'node --enable-source-maps dist/main.js', 'user:hello': 'echo hello', dev: 'opgen dev' },
      // Not added back to dependencies: the user has it (in devDependencies).
      devDependencies: { '@opgen/runtime': 'file:../opgen-runtime-0.2.0.tgz', opgen: 'file:../opgen-0.2.0.tgz', typescript: '~5.9.3', vitest: '4.1.12' },
    });
    expect(existsSync(join(dir, 'package.json.opgen-theirs'))).toBe(false);
  });

  it('a JSON change both sides made differently stays yours, valid JSON, with the new scaffold\'s file beside it', () => {
    const base = { scripts: { start: 'node dist/main.js' }, devDependencies: { opgen: '0.1.0' } };
    const theirs = { scripts: { start: 'node --enable-source-maps dist/main.js' }, devDependencies: { opgen: '0.2.0' } };
    const ours = { scripts: { start: 'node --inspect dist/main.js' }, devDependencies: { opgen: '^0.2.0' } };
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(ours, null, 2)}\n`);
    // tsconfig.json may hold comments (not JSON.parse's JSON): merged as text, and left as yours on a conflict.
    writeFileSync(join(dir, 'tsconfig.json'), '{\n  // mine\n  "target": "ES2020"\n}\n');
    const tree = new Tree(dir);
    const results = mergeScaffolds(tree,
      new Map([['package.json', JSON.stringify(base, null, 2)], ['tsconfig.json', '{\n  "target": "ES2022"\n}\n']]),
      new Map([['package.json', JSON.stringify(theirs, null, 2)], ['tsconfig.json', '{\n  "target": "ES2023"\n}\n']]), labels);
    expect(results).toEqual([
      { path: 'package.json', action: 'conflict', conflicts: 1, note: "scripts.start: both changed; yours kept, the new scaffold's file is package.json.opgen-theirs: take what you need from it, then delete it" },
      { path: 'tsconfig.json', action: 'conflict', conflicts: 1, note: "both changed the same lines; yours kept, the new scaffold's file is tsconfig.json.opgen-theirs: take what you need from it, then delete it" },
    ]);
    commitTree(tree);
    const read = (p: string) => readFileSync(join(dir, p), 'utf8');
    expect(JSON.parse(read('package.json'))).toEqual(ours);
    expect(read('package.json.opgen-theirs')).toBe(JSON.stringify(theirs, null, 2));
    expect(read('tsconfig.json')).toBe('{\n  // mine\n  "target": "ES2020"\n}\n');
    expect(read('tsconfig.json.opgen-theirs')).toBe('{\n  "target": "ES2023"\n}\n');
  });
});

describe('replayCommands', () => {
  it('replays a project whose webhooks use --cert-provider self into the same files', async () => {
    const project = join(dir, 'memcached-operator');
    const replayed = join(dir, 'replayed', 'memcached-operator');
    mkdirSync(project);
    mkdirSync(replayed, { recursive: true });
    await opgenOk(project, 'init', '--domain', 'example.com', '--skip-install');
    await opgenOk(project, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached');
    await opgenOk(project, 'create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--cert-provider', 'self');
    const tree = new Tree(project);
    for (const argv of replayCommands(loadProject(tree), tree)) await opgenOk(replayed, ...argv);
    expect(snapshot(replayed)).toEqual(snapshot(project));
  });
});
