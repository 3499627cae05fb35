// The packages of src/ (its top folders) import only downward: no two reach each other through imports,
// static, dynamic or type-only. A cycle means two packages cannot be understood, tested or loaded apart;
// the shared piece belongs below both (src/common holds the leaves). Tests and src/testdata are left out:
// a test may reach anything above what it tests.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return e === 'testdata' || e === 'node_modules' ? [] : sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const packageOf = (file: string): string => relative(src, file).split(sep)[0]!;

/** Package → package it imports → the first import that makes the edge (file: specifier). */
function packageGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sources(src)) {
    const from = packageOf(file);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const imported of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!imported.fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), imported.fileName);
      if (!target.startsWith(src + sep)) continue;
      const to = packageOf(target);
      if (to !== from && !graph.get(from)!.has(to)) graph.get(from)!.set(to, `${relative(src, file)}: ${imported.fileName}`);
    }
  }
  return graph;
}

/** Strongly connected components with more than one package (Tarjan). */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

describe('the import graph of src/ packages', () => {
  it('has no cycle', () => {
    const graph = packageGraph();
    expect(graph.size).toBeGreaterThan(10);
    const found = cycles(graph).map((c) =>
      c.flatMap((a) => c.filter((b) => graph.get(a)?.has(b)).map((b) => `${a} -> ${b} (${graph.get(a)!.get(b)})`)).join('; '),
    );
    expect(found).toEqual([]);
  });

  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['a', new Map([['b', 'a/x.ts: ../b/y.js']])],
      ['b', new Map([['c', 'b/y.ts: ../c/z.js']])],
      ['c', new Map([['a', 'c/z.ts: ../a/x.js']])],
      ['d', new Map([['a', 'd/w.ts: ../a/x.js']])],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });
});
