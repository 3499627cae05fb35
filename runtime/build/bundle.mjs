// Bundles tsc's output into one module per entry point of package.json's "exports" (plus chunks for
// code two entries share), and removes the per-file modules tsc wrote. Node keeps every loaded ES
// module's record, source and loader state alive: the ~80 files of dist cost an idle operator ~5 MB of
// RSS over the same code in one module (docs/runtime-performance.md). Declarations (.d.ts) stay as tsc
// wrote them; the bundle keeps tsc's JavaScript as it is (no minifying), so a stack frame in it reads
// as the runtime's code. It has no source maps: an operator runs with --enable-source-maps (its own
// stack traces name its TypeScript), and Node then loads the map of every module that names one and
// decodes it on the first stack trace it formats: the bundle's maps (0.76 MB, mapping only to tsc's
// JavaScript) cost an idle operator 2.3 MB of RSS (docs/runtime-performance.md).
// The bundle is written in ASCII (other characters escaped) and without JSDoc comments: V8 holds a
// module's source for as long as the module lives, two bytes per character if a single character is
// outside Latin-1, so one '→' in a comment doubled the ~190 KB string; the JSDoc stays in the .d.ts
// files, where editors read it.
import { readFileSync, readdirSync, rmSync, cpSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const dist = join(pkgDir, 'dist');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

/** Entry name (path under dist without .js) of every file an export of package.json can resolve to. */
function entries() {
  const names = new Set();
  for (const target of Object.values(pkg.exports)) {
    const file = relative(dist, join(pkgDir, target.default)).replace(/\.js$/, '');
    if (!file.includes('*')) {
      names.add(file);
      continue;
    }
    const [dir, pattern] = [file.slice(0, file.lastIndexOf('/')), file.slice(file.lastIndexOf('/') + 1)];
    if (pattern !== '*') throw new Error(`bundle: export pattern ${target.default} is not <folder>/*.js`);
    for (const f of readdirSync(join(dist, dir))) if (f.endsWith('.js')) names.add(`${dir}/${f.slice(0, -3)}`);
  }
  // Not exported, but bench/webhook loads the runtime's CA by path to make its servers' certificates.
  names.add('internal/tls/tiny-ca');
  return [...names].sort();
}

function jsFiles(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? jsFiles(p) : /\.js(\.map)?$/.test(f) ? [p] : [];
  });
}

const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
const input = Object.fromEntries(entries().map((name) => [name, join(dist, `${name}.js`)]));
const bundle = await rolldown({
  input,
  platform: 'node',
  external: (id) => id.startsWith('node:') || external.some((dep) => id === dep || id.startsWith(`${dep}/`)),
  logLevel: 'warn',
  onLog(level, log) {
    throw new Error(`bundle: ${log.message}`);
  },
});
// Written beside dist, then copied into it.
const out = join(pkgDir, '.bundle');
rmSync(out, { recursive: true, force: true });
try {
  await bundle.write({
    dir: out,
    format: 'esm',
    sourcemap: false,
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    charset: 'ascii',
    comments: { jsdoc: false, legal: true, annotation: true },
  });
  await bundle.close();
  for (const f of jsFiles(dist)) rmSync(f);
  cpSync(out, dist, { recursive: true });
} finally {
  rmSync(out, { recursive: true, force: true });
}
