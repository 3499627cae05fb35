// No import circles in opgen's code, file by file, in src/ and runtime/src. A circle makes evaluation
// order depend on which module a program happens to load first (a class or constant read before its
// module ran), and it hides which piece sits below which: two files in one circle cannot be understood,
// tested or loaded apart. Every import counts: type-only ones (they still tie the two files' designs
// together), re-exports and dynamic import()s. Tests and testdata are left out: a test may reach
// anything above what it tests. The shared piece of a circle belongs below both ends.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '..');

/** The .ts files of `dir` that are not tests, declarations or test data. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testdata' || e.name === 'node_modules' ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** file → file it imports → the specifier written; relative imports of .ts files under `root` only. */
type Graph = Map<string, Map<string, string>>;

/**
 * The import graph of `files` (paths relative to `root`, read with `read`): static imports and
 * re-exports, `import type`, and `import()`, as TypeScript's own pre-processor finds them.
 */
function importGraph(files: readonly string[], read: (file: string) => string): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const edges = new Map<string, string>();
    for (const { fileName } of ts.preProcessFile(read(file), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = join(dirname(file), fileName).replace(/\.js$/, '.ts');
      if (target.endsWith('.ts') && !edges.has(target)) edges.set(target, fileName);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** Strongly connected components of more than one node (Tarjan), each sorted; edges to unknown nodes are ignored. */
function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** Each circle as its edges, `a.ts -> b.ts ('./b.js')`, for a failure that says which lines to change. */
function describeCycles(graph: Graph): string[] {
  return cycles(graph).map((c) =>
    c.flatMap((a) => c.filter((b) => graph.get(a)?.has(b)).map((b) => `${a} -> ${b} ('${graph.get(a)!.get(b)}')`)).join('; '),
  );
}

/** The same graph with each file replaced by its top folder under `root` (src/'s packages). */
function folderGraph(graph: Graph, root: string): Graph {
  const folder = (file: string) => relative(root, file).split(sep)[0]!;
  const out: Graph = new Map();
  for (const [file, edges] of graph) {
    const from = folder(file);
    const mine = out.get(from) ?? out.set(from, new Map()).get(from)!;
    for (const [target] of edges) {
      if (!target.startsWith(root + sep)) continue;
      const to = folder(target);
      if (to !== from && !mine.has(to)) mine.set(to, `${relative(root, file)} imports ${relative(root, target)}`);
    }
  }
  return out;
}

const trees = ['src', 'runtime/src'];
const graph = importGraph(trees.flatMap((tree) => sources(join(repo, tree)).map((f) => relative(repo, f))), (f) => readFileSync(join(repo, f), 'utf8'));

describe('the import graph of src/ and runtime/src', () => {
  it('has no circle between files, type-only and dynamic imports included', () => {
    for (const tree of trees) expect([...graph.keys()].filter((f) => f.startsWith(`${tree}/`)).length, tree).toBeGreaterThan(100);
    expect(describeCycles(graph)).toEqual([]);
  });

  // src/'s top folders (its packages) also import only downward: src/common holds the leaves.
  it("has no circle between src/'s top folders", () => {
    const packages = folderGraph(graph, 'src');
    expect(packages.size).toBeGreaterThan(10);
    expect(describeCycles(packages)).toEqual([]);
  });
});

describe('the import-circle check', () => {
  const check = (files: Record<string, string>) => describeCycles(importGraph(Object.keys(files), (f) => files[f]!));

  // The three circles of a9720d0, with their import lines as they were written.
  it('finds a circle made of type-only imports and a re-export (runtime metrics, transport, tracing)', () => {
    expect(check({
      'runtime/src/transport/transport.ts': "import type { RequestObserver } from '../tracing/instrument.js';",
      'runtime/src/transport/index.ts': "export { Transport, type Query } from './transport.js';",
      'runtime/src/tracing/instrument.ts': "import type { ControllerMetrics, ReconcileResult, RuntimeMetrics } from '../metrics/index.js';",
      'runtime/src/metrics/index.ts': "import { hostname } from 'node:os';\nimport { Transport } from '../transport/index.js';",
      'runtime/src/metrics/registry.ts': '',
    })).toEqual([
      "runtime/src/metrics/index.ts -> runtime/src/transport/index.ts ('../transport/index.js'); " +
        "runtime/src/tracing/instrument.ts -> runtime/src/metrics/index.ts ('../metrics/index.js'); " +
        "runtime/src/transport/index.ts -> runtime/src/transport/transport.ts ('./transport.js'); " +
        "runtime/src/transport/transport.ts -> runtime/src/tracing/instrument.ts ('../tracing/instrument.js')",
    ]);
  });

  it('finds a circle closed by a dynamic import() (cli/main and the command table)', () => {
    expect(check({
      'src/cli/main.ts': "import { commands, groups, type CommandSpec, type Options } from './command-table.js';",
      'src/cli/command-table.ts': "async function run() {\n  const [{ updateCommand }, { run }] = await Promise.all([import('../update/index.js'), import('./main.js')]);\n}",
      'src/update/index.ts': "import type { CommandContext } from '../common/command-context.js';",
      'src/common/command-context.ts': '',
    })).toEqual(["src/cli/command-table.ts -> src/cli/main.ts ('./main.js'); src/cli/main.ts -> src/cli/command-table.ts ('./command-table.js')"]);
  });

  it('finds a circle of four files inside one folder (olm bundle helpers)', () => {
    const files: Record<string, string> = {
      'src/olm/bundle.ts': "import { exampleFor } from './alm-examples.js';\nimport { byKey } from './bundle-metadata.js';\nexport { OLM_CERT_MOUNTS } from './bundle-webhooks.js';",
      'src/olm/bundle-metadata.ts': "import type { BundleInputs } from './bundle.js';\nimport { isRecord } from './objects.js';",
      'src/olm/bundle-webhooks.ts': "import { byKey } from './bundle-metadata.js';",
      'src/olm/alm-examples.ts': "import { type CrdSpec } from './bundle-webhooks.js';",
      'src/olm/objects.ts': '',
    };
    const g = importGraph(Object.keys(files), (f) => files[f]!);
    expect(cycles(g)).toEqual([['src/olm/alm-examples.ts', 'src/olm/bundle-metadata.ts', 'src/olm/bundle-webhooks.ts', 'src/olm/bundle.ts']]);
    // Seen folder by folder (the old gate of src/), it is one node and no circle.
    expect(cycles(folderGraph(g, 'src'))).toEqual([]);
  });

  it('finds a circle between folders, and none where imports only go down', () => {
    const files = {
      'src/a/x.ts': "import { y } from '../b/y.js';",
      'src/b/y.ts': "import { z } from '../c/z.js';",
      'src/c/z.ts': "import { x } from '../a/w.js';",
      'src/a/w.ts': '',
      'src/d/v.ts': "import { x } from '../a/x.js';",
    };
    const g = importGraph(Object.keys(files), (f) => files[f as keyof typeof files]);
    expect(cycles(g)).toEqual([]);
    expect(cycles(folderGraph(g, 'src'))).toEqual([['a', 'b', 'c']]);
  });
});
