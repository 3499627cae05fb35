// `node --import test/module-log/register.mjs …` appends the URL of every module the process loads to
// the file named by $OPGEN_LOAD_LOG: tests use it to assert that a code path never loads a heavy
// library. ESM imports go through the resolve hook; require() does not, so the CommonJS module cache
// is added at exit.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

register('./hooks.mjs', import.meta.url);
const cjs = createRequire(import.meta.url).cache;
process.on('exit', () => appendFileSync(process.env.OPGEN_LOAD_LOG, Object.keys(cjs).map((f) => `${f}\n`).join('')));
