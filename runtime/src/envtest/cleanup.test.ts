// A test process can die without calling stop(): it fails and exits, gets SIGTERM/SIGINT from a
// runner, or is SIGKILLed. In every case etcd and kube-apiserver must go away with their folder.
// These tests start an environment in a child Node process and end that process in each way.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesMentioning } from './testdata/processes.js';

// The whole runtime source, not only envtest/: envtest imports shared modules such as internal/tls.
const sourceDir = fileURLToPath(new URL('..', import.meta.url));
// Inside the repository so the child resolves @kubernetes/client-node and yaml from node_modules.
const childDir = fileURLToPath(new URL(`../../../node_modules/.cache/opgen-envtest-child-${process.pid}/`, import.meta.url));

function transpileEnvtest(): void {
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []);
  for (const file of walk(sourceDir)) {
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const target = join(childDir, relative(sourceDir, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, out);
  }
  writeFileSync(join(childDir, 'package.json'), '{"type":"module"}\n');
  // Prints the environment's folder, then either exits without stop() or waits to be killed.
  writeFileSync(join(childDir, 'child.js'), `
import { dirname } from 'node:path';
import { startTestEnv } from './envtest/index.js';
const env = await startTestEnv();
process.stdout.write(dirname(env.kubeconfigPath) + '\\n');
if (process.argv[2] === 'exit') process.exit(1);
setInterval(() => {}, 1000);
`);
}

interface Child { folder: string; kill(signal: NodeJS.Signals): void; exited: Promise<void> }

function startChild(mode: 'exit' | 'wait'): Promise<Child> {
  const child = spawn(process.execPath, [join(childDir, 'child.js'), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve({ folder: out.trim(), kill: (s) => child.kill(s), exited });
    });
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before starting the environment`)));
  });
}

async function expectCleanedUp(folder: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while ((processesMentioning(folder).length > 0 || existsSync(folder)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(processesMentioning(folder)).toEqual([]);
  expect(existsSync(folder)).toBe(false);
}

describe('cleanup when the test process ends without stop()', () => {
  beforeAll(transpileEnvtest);
  afterAll(() => rmSync(childDir, { recursive: true, force: true }));

  it('exiting (a failed test file) ends both processes and removes the folder', async () => {
    const child = await startChild('exit');
    await child.exited;
    await expectCleanedUp(child.folder, 2_000);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the test process ends both processes and removes the folder`, async () => {
      const child = await startChild('wait');
      expect(processesMentioning(child.folder)).toHaveLength(2);
      child.kill(signal);
      await child.exited;
      await expectCleanedUp(child.folder, 2_000);
    });
  }

  it('SIGKILL to the test process: the reaper ends both processes and removes the folder', async () => {
    const child = await startChild('wait');
    expect(processesMentioning(child.folder)).toHaveLength(2);
    child.kill('SIGKILL');
    await child.exited;
    await expectCleanedUp(child.folder, 10_000);
  });
});
