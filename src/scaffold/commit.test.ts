// commitTree writes all of a tree or none of it: conflicts and permissions are refused before anything
// is written, and a filesystem failure at any later step (folder, temporary file, rename, delete) undoes
// what the commit had done. Failures after the checks are injected by wrapping the real node:fs calls.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpgenError } from '../diag/diagnostic.js';
import { commitTree, commitTrees, Tree, type CommitIo } from './index.js';
import { snapshot as files } from '../testdata/files.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'opgen-commit-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/main.ts'), 'main\n');
  writeFileSync(join(root, 'README.md'), 'readme\n');
  writeFileSync(join(root, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function failure(f: () => unknown): OpgenError {
  try {
    f();
  } catch (err) {
    if (err instanceof OpgenError) return err;
    throw err;
  }
  throw new Error('expected an OpgenError');
}

/** A tree touching every kind of step: new folders, a create, two updates, a delete. */
function busyTree(): Tree {
  const tree = new Tree(root);
  tree.write('config/deep/a.yaml', 'a: 1\n');
  tree.write('config/b.yaml', 'b: 1\n');
  tree.write('README.md', 'changed\n');
  tree.write('run.sh', '#!/bin/sh\necho hi\n');
  tree.delete('src/main.ts');
  tree.write('z.txt', 'z\n');
  return tree;
}

/** node:fs, except that the `n`-th call (0-based) of `call` fails with `code`. */
function failingIo(call: keyof CommitIo, n: number, code = 'ENOSPC'): CommitIo & { calls: number } {
  const io = {
    calls: 0,
    mkdirSync: (p: string) => fs.mkdirSync(p),
    writeFileSync: (p: string, d: string, o: { mode: number }) => fs.writeFileSync(p, d, { mode: o.mode, flag: 'wx' }),
    renameSync: (a: string, b: string) => fs.renameSync(a, b),
    unlinkSync: (p: string) => fs.unlinkSync(p),
    rmdirSync: (p: string) => fs.rmdirSync(p),
  };
  const real = io[call] as (...args: unknown[]) => void;
  (io as Record<string, unknown>)[call] = (...args: unknown[]) => {
    if (io.calls++ === n) throw Object.assign(new Error(`${code}: injected`), { code });
    real(...args);
  };
  return io;
}

describe('commitTree checks every path before writing', () => {
  it('refuses a file where a folder is needed, naming it, and writes nothing', () => {
    writeFileSync(join(root, 'config'), 'i am a file\n');
    const before = snapshot(root);
    const err = failure(() => commitTree(busyTree()));
    expect(err.format()).toBe('config: error: this is a file, but config/b.yaml needs a folder here (move config away and run the command again; nothing was written)');
    expect(snapshot(root)).toEqual(before);
  });

  it('refuses a folder where a file goes, and writes nothing', () => {
    mkdirSync(join(root, 'z.txt'));
    const before = snapshot(root);
    const err = failure(() => commitTree(busyTree()));
    expect(err.format()).toBe('z.txt: error: a folder is here, but opgen needs to write a file at this path (move the folder away and run the command again; nothing was written)');
    expect(snapshot(root)).toEqual(before);
  });

  it('reports the same conflict in a dry run', () => {
    writeFileSync(join(root, 'config'), 'i am a file\n');
    const lines: string[] = [];
    expect(() => commitTree(busyTree(), { dryRun: true, out: (l) => lines.push(l) })).toThrow(/config\/b.yaml needs a folder here/);
    expect(lines).toEqual([]);
  });

  it('checks every tree of a multi-tree commit before writing any', () => {
    const outside = mkdtempSync(join(tmpdir(), 'opgen-commit-out-'));
    try {
      writeFileSync(join(outside, 'rbac'), 'file\n');
      const first = new Tree(root);
      first.write('config/crd/x.yaml', 'x\n');
      const second = new Tree(outside);
      second.write('rbac/role.yaml', 'r\n');
      const before = snapshot(root);
      expect(() => commitTrees([first, second])).toThrow(/role.yaml needs a folder here/);
      expect(snapshot(root)).toEqual(before);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('commitTree undoes a failed write', () => {
  // Each failure point of the apply phase, at its first and at a later call.
  const points: [keyof CommitIo, number][] = [
    ['mkdirSync', 0],
    ['mkdirSync', 1],
    ['writeFileSync', 0],
    ['writeFileSync', 3],
    ['renameSync', 0],
    ['renameSync', 2],
    ['renameSync', 4],
    ['unlinkSync', 0],
  ];
  for (const [call, n] of points) {
    it(`restores the folder byte for byte when ${call} #${n} fails`, () => {
      const before = snapshot(root);
      const lines: string[] = [];
      const io = failingIo(call, n);
      const err = failure(() => commitTree(busyTree(), { io, out: (l) => lines.push(l) }));
      expect(io.calls).toBeGreaterThan(n); // the injected failure was reached
      expect(err.format()).toMatch(/^[\w/.]+: error: cannot (write|delete|create its folder): no space left on the device \(ENOSPC\) \(nothing was changed; fix the cause and run the command again\)$/);
      expect(snapshot(root)).toEqual(before);
      expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o755);
      expect(lines).toEqual([]);
    });
  }

  it('names the file whose write failed', () => {
    const err = failure(() => commitTree(busyTree(), { io: failingIo('renameSync', 1, 'EACCES') }));
    // Steps run in path order: README.md, config/b.yaml, config/deep/a.yaml, run.sh, src/main.ts, z.txt.
    expect(err.format()).toBe('config/b.yaml: error: cannot write: permission denied (EACCES) (nothing was changed; fix the cause and run the command again)');
  });

  it('writes everything, keeping a replaced file\'s mode, and leaves no temporary file', () => {
    const lines: string[] = [];
    commitTree(busyTree(), { out: (l) => lines.push(l) });
    expect(snapshot(root)).toEqual({
      'README.md': 'changed\n',
      config: '<dir>',
      'config/b.yaml': 'b: 1\n',
      'config/deep': '<dir>',
      'config/deep/a.yaml': 'a: 1\n',
      'run.sh': '#!/bin/sh\necho hi\n',
      src: '<dir>',
      'z.txt': 'z\n',
    });
    expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(lines).toEqual(['UPDATE README.md', 'CREATE config/b.yaml', 'CREATE config/deep/a.yaml', 'UPDATE run.sh', 'DELETE src/main.ts', 'CREATE z.txt']);
  });
});

describe('commitTree and permissions', () => {
  // Root ignores file modes, so as root the check runs in a child process as nobody (uid 65534).
  it('refuses a folder it may not write in before writing anything', async () => {
    const { execa } = await import('execa');
    // The child runs the built module (npm run build): Node 20 cannot import .ts.
    const built = new URL('../../dist/scaffold/index.js', import.meta.url).pathname;
    expect(existsSync(built), `${built} is missing: run npm run build first`).toBe(true);
    chmodSync(root, 0o755);
    mkdirSync(join(root, 'config'));
    chmodSync(join(root, 'config'), 0o555);
    const script = `
      import { commitTree, Tree } from ${JSON.stringify(built)};
      const tree = new Tree(process.argv[1]);
      tree.write('a-first.txt', 'a\\n');
      tree.write('config/x.yaml', 'x\\n');
      try { commitTree(tree); } catch (err) { console.log(err.format()); }
    `;
    const asNobody = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    chmodSync(root, 0o777); // nobody may write in the root itself, not in config/
    const before = snapshot(root);
    const cmd = [...asNobody, process.execPath, '--input-type=module', '-e', script, root];
    const r = await execa(cmd[0]!, cmd.slice(1), { reject: false });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('config: error: cannot write in this folder: permission denied (EACCES) (nothing was changed; fix the cause and run the command again)');
    expect(snapshot(root)).toEqual(before);
    expect(existsSync(join(root, 'a-first.txt'))).toBe(false);
  });
});

function snapshot(dir: string): Record<string, string> {
  return files(dir, { folders: true });
}
