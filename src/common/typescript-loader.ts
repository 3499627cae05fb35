// Loads the TypeScript compiler bundled with ts-morph, through a V8 code cache. Parsing the 9 MB compiler
// is a third of a cold `opgen generate`; with the cache V8 skips it (Node 22's module.enableCompileCache
// does the same, but opgen supports Node 20). Any problem with the cache falls back to a plain require.
import { isAscii } from 'node:buffer';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';
import type { ts as TS } from 'ts-morph';
import { sha1, userCacheDir } from './cache-dir.js';

let loaded: typeof TS | undefined;

export function loadTypeScript(): typeof TS {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const fromTsMorph = createRequire(require.resolve('ts-morph'));
  let file: string;
  try {
    file = fromTsMorph.resolve('@ts-morph/common/dist/typescript.js');
  } catch {
    loaded = (require('ts-morph') as typeof import('ts-morph')).ts;
    return loaded;
  }
  try {
    // The compiler is ASCII: decoding 9 MB as latin1 is a plain copy, UTF-8 decoding is not.
    const bytes = readFileSync(file);
    const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    const stat = statSync(file);
    const key = sha1(`${file}\0${stat.size}\0${stat.mtimeMs}\0${process.version}`);
    const cacheFile = join(userCacheDir('v8'), `typescript-${key}.bin`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
    const module = { exports: {} as unknown };
    (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
    loaded = module.exports as typeof TS;
    if (typeof loaded.createSourceFile !== 'function') throw new Error('not the compiler');
    if (!cachedData || script.cachedDataRejected) {
      try {
        mkdirSync(userCacheDir('v8'), { recursive: true });
        writeFileSync(cacheFile, script.createCachedData());
      } catch {
        // No cache this time; the next run tries again.
      }
    }
    return loaded;
  } catch {
    loaded = (require('ts-morph') as typeof import('ts-morph')).ts;
    return loaded;
  }
}
