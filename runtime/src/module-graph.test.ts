// The runtime's modules import one another without cycles: a cycle makes evaluation order depend on
// which module a program happens to load first (a class or constant read before its module ran), and
// it hides which noun sits below which. Type-only imports are left out: they vanish from the output.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const srcDir = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testdata' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative imports and re-exports of `file` that remain at run time (not `import type`, not all-`type` specifiers). */
function runtimeImports(file: string, text: string, opts: { types?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^[ \t]*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'(\.[^']+)'/gm)) {
    const [, typeOnly, clause, spec] = m;
    if (opts.types) {
      out.push(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')));
      continue;
    }
    if (typeOnly) continue;
    const braces = /^\{([^}]*)\}$/.exec(clause!.trim());
    if (braces && braces[1]!.split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '))) continue;
    out.push(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')));
  }
  return out;
}

/** Strongly connected components with more than one module (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
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
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.map((f) => relative(srcDir, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('module graph of @opgen/runtime', () => {
  it('the scanner sees run-time imports and skips type-only ones', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "import {\n  type E,\n  f,\n} from './e.js';",
      "export { g } from './g.js';",
      "export type { H } from './h.js';",
    ].join('\n');
    expect(runtimeImports('/x/m.ts', text)).toEqual(['/x/a.ts', '/x/e.ts', '/x/g.ts']);
    expect(runtimeImports('/x/m.ts', text, { types: true })).toEqual(['/x/a.ts', '/x/b.ts', '/x/c.ts', '/x/e.ts', '/x/g.ts', '/x/h.ts']);
    expect(cycles(new Map([['/a', ['/b']], ['/b', ['/a']], ['/c', ['/a']]]))).toHaveLength(1);
  });

  it('has no import cycles', () => {
    const graph = new Map(sourceFiles(srcDir).map((f) => [f, runtimeImports(f, readFileSync(f, 'utf8'))]));
    expect(graph.size).toBeGreaterThan(50);
    expect(cycles(graph)).toEqual([]);
  });

  // The manager runs the webhook server, and local development (deciding, patching and restoring the
  // cluster's webhook configurations) sits between them: with type imports counted, none of them may
  // import its way back to another (manager.ts <-> local-development.ts <-> server.ts once did).
  it('the manager and the webhook modules are in no cycle, type-only imports included', () => {
    const graph = new Map(sourceFiles(srcDir).map((f) => [f, runtimeImports(f, readFileSync(f, 'utf8'), { types: true })]));
    const ours = cycles(graph).filter((c) => c.some((f) => f.startsWith('manager/') || f.startsWith('webhook/')));
    expect(ours).toEqual([]);
  });
});
