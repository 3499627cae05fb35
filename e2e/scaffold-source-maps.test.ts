// A scaffolded operator's stack traces name its TypeScript sources: `npm start` and the Dockerfile's
// ENTRYPOINT run node with --enable-source-maps over the build's dist/*.js.map. The project's manager is
// made to throw from a module of its own, and the uncaught error's stack must point at src/boom.ts.
// Needs `npm run build` (the scaffolded project links this repository's node_modules, whose
// @opgen/runtime is the built workspace package).
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opgenOk } from '../src/testdata/cli.js';
import { tempDir } from '../src/testdata/files.js';
import { repoRoot } from './helpers.js';

let dir: string;
let cleanup: () => void;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('opgen-srcmap-', 'boom-operator'));
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  // Line 3 throws; main.ts imports it, so the manager dies before it looks for a cluster.
  writeFileSync(join(dir, 'src/boom.ts'), "export function boom(): never {\n  // the line the stack must name\n  throw new Error('boom from the operator');\n}\n");
  const main = readFileSync(join(dir, 'src/main.ts'), 'utf8');
  writeFileSync(join(dir, 'src/main.ts'), main.replace("import { parseArgs } from 'node:util';", "import { parseArgs } from 'node:util';\nimport { boom } from './boom.js';\nboom();"));
  const tsc = await execa(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: dir, reject: false, all: true });
  expect(tsc.exitCode, tsc.all).toBe(0);
}, 120_000);

afterAll(() => cleanup?.());

/** The first stack frame after the error message. */
function firstFrame(stderr: string): string {
  return stderr.split('\n').find((l) => /^\s+at /.test(l)) ?? stderr;
}

describe('a scaffolded operator that throws', () => {
  it('npm start: the stack names src/boom.ts:3', async () => {
    const start = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    // The script itself, without prestart's generate and build (done above).
    const r = await execa('sh', ['-c', start], { cwd: dir, reject: false, env: { PATH: `${join(process.execPath, '..')}:${process.env.PATH ?? ''}` } });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('boom from the operator');
    expect(firstFrame(r.stderr)).toMatch(/src\/boom\.ts:3:\d+\)?$/);
  });

  it("the Dockerfile's ENTRYPOINT: the stack names src/boom.ts:3, the memory flags kept", async () => {
    const line = readFileSync(join(dir, 'Dockerfile'), 'utf8').split('\n').find((l) => l.startsWith('ENTRYPOINT '))!;
    const entrypoint = JSON.parse(line.slice('ENTRYPOINT '.length)) as string[];
    expect(entrypoint).toEqual(['/nodejs/bin/node', '--max-semi-space-size=1', '--no-opt', '--enable-source-maps', '/dist/main.js']);
    // The image's layout (/dist, /node_modules) is the project's own here.
    const args = entrypoint.slice(1).map((a) => (a === '/dist/main.js' ? join(dir, 'dist/main.js') : a));
    const r = await execa(process.execPath, args, { cwd: dir, reject: false });
    expect(r.exitCode).not.toBe(0);
    expect(firstFrame(r.stderr)).toMatch(/src\/boom\.ts:3:\d+\)?$/);
  });
});
