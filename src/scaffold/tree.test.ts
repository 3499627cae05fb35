import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpgenError } from '../diag/diagnostic.js';
import { commitTree, insertAtMarker, insertInto, Tree } from './index.js';
import { snapshot } from '../testdata/files.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'opgen-tree-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/main.ts'), 'main\n');
  writeFileSync(join(root, 'README.md'), 'readme\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('Tree', () => {
  it('reads disk files and staged writes, and lists creates, updates and deletes sorted by path', () => {
    const tree = new Tree(root);
    expect(tree.read('src/main.ts')).toBe('main\n');
    expect(tree.read('missing.ts')).toBeUndefined();
    tree.write('src/new.ts', 'new\n');
    tree.write('README.md', 'changed\n');
    tree.delete('src/main.ts');
    expect(tree.read('src/new.ts')).toBe('new\n');
    expect(tree.exists('src/main.ts')).toBe(false);
    expect(tree.changes()).toEqual([
      { kind: 'update', path: 'README.md' },
      { kind: 'delete', path: 'src/main.ts' },
      { kind: 'create', path: 'src/new.ts' },
    ]);
    expect(tree.list('src')).toEqual(['src/new.ts']);
    expect(tree.list()).toEqual(['README.md', 'src/new.ts']);
  });

  it('treats writing identical content as no change, even under ifExists=error', () => {
    const tree = new Tree(root);
    expect(tree.write('README.md', 'readme\n', { ifExists: 'error' })).toBe(false);
    tree.write('README.md', 'other\n');
    tree.write('README.md', 'readme\n'); // back to the disk content
    expect(tree.changes()).toEqual([]);
  });

  it('applies the ifExists policy to a file that exists with other content', () => {
    const tree = new Tree(root);
    expect(tree.write('README.md', 'x\n', { ifExists: 'skip' })).toBe(false);
    expect(tree.read('README.md')).toBe('readme\n');
    let err: unknown;
    try {
      tree.write('README.md', 'x\n', { ifExists: 'error' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OpgenError);
    expect((err as OpgenError).format()).toBe('README.md: error: README.md already exists and would be overwritten (pass --force to overwrite it)');
    expect(tree.write('README.md', 'x\n', { ifExists: 'overwrite' })).toBe(true);
  });

  it('refuses paths outside the root', () => {
    const tree = new Tree(root);
    expect(() => tree.write('../escape.txt', 'x')).toThrow(/outside the project root/);
    expect(() => tree.write('/etc/passwd', 'x')).toThrow(/outside the project root/);
  });
});

describe('commitTree', () => {
  it('prints CREATE/UPDATE/DELETE lines and writes nothing in a dry run', () => {
    const before = snapshot(root);
    const tree = new Tree(root);
    tree.write('config/a.yaml', 'a: 1\n');
    tree.write('README.md', 'changed\n');
    tree.delete('src/main.ts');
    const lines: string[] = [];
    commitTree(tree, { dryRun: true, out: (l) => lines.push(l) });
    expect(lines).toEqual(['UPDATE README.md', 'CREATE config/a.yaml', 'DELETE src/main.ts']);
    expect(snapshot(root)).toEqual(before);
    expect(existsSync(join(root, 'config'))).toBe(false);
  });

  it('writes the changes, creating directories', () => {
    const tree = new Tree(root);
    tree.write('config/deep/a.yaml', 'a: 1\n');
    tree.delete('src/main.ts');
    commitTree(tree);
    expect(snapshot(root)).toEqual({ 'README.md': 'readme\n', 'config/deep/a.yaml': 'a: 1\n' });
  });

  it('leaves the directory byte-for-byte unchanged when a command fails before committing', () => {
    const before = snapshot(root);
    const command = (): void => {
      const tree = new Tree(root);
      tree.write('new.ts', 'x');
      tree.write('README.md', 'y', { ifExists: 'error' }); // fails
      commitTree(tree);
    };
    expect(command).toThrow(OpgenError);
    expect(snapshot(root)).toEqual(before);
  });
});

describe('insertion points', () => {
  const ts = ['const a = 1;', '  // +opgen:scaffold:controllers', 'end();', ''].join('\n');

  it('inserts above the marker with its indentation, once', () => {
    const once = insertAtMarker(ts, 'controllers', 'setup(a);\nsetup(b);');
    expect(once).toBe(['const a = 1;', '  setup(a);', '  setup(b);', '  // +opgen:scaffold:controllers', 'end();', ''].join('\n'));
    expect(insertAtMarker(once!, 'controllers', 'setup(a);\nsetup(b);')).toBe(once);
  });

  it('finds YAML markers', () => {
    const yaml = 'resources:\n# +opgen:scaffold:crdkustomizeresource\n';
    expect(insertAtMarker(yaml, 'crdkustomizeresource', '- bases/x.yaml')).toBe(
      'resources:\n- bases/x.yaml\n# +opgen:scaffold:crdkustomizeresource\n',
    );
    expect(insertAtMarker(yaml, 'other', '- x')).toBeUndefined();
  });

  it('names the file and the missing marker line when the user removed it', () => {
    const tree = new Tree(root);
    expect(() => insertInto(tree, 'src/main.ts', 'controllers', 'x();')).toThrow(
      expect.objectContaining({ message: 'insertion point "// +opgen:scaffold:controllers" is missing' }),
    );
    tree.write('config/k.yaml', 'resources:\n# +opgen:scaffold:res\n');
    expect(insertInto(tree, 'config/k.yaml', 'res', '- a.yaml')).toBe(true);
    expect(insertInto(tree, 'config/k.yaml', 'res', '- a.yaml')).toBe(false);
  });
});
