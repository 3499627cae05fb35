// SIGTERM sent to a real operator process (the runtime compiled by tsc, run by node): the manager
// stops taking work and lets the reconcile in flight finish; a second signal exits at once.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../envtest/index.js';
import { Namespace } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import { Guestbook, startGuestbookEnv } from './testdata/guestbook.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const operatorScript = fileURLToPath(new URL('./testdata/sigterm-operator.mjs', import.meta.url));
let env: TestEnv;
let client: Client;
let buildDir: string;

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), 'opgen-runtime-build-'));
  // The compiled runtime resolves @kubernetes/client-node from the repository's packages.
  symlinkSync(join(repo, 'node_modules'), join(buildDir, 'node_modules'));
  execFileSync(join(repo, 'node_modules/.bin/tsc'), ['-p', join(repo, 'runtime/tsconfig.build.json'), '--outDir', join(buildDir, 'dist')], { stdio: 'pipe' });
  ({ env, client } = await startGuestbookEnv());
}, 180_000);

afterAll(async () => {
  await env?.stop();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

interface Operator {
  events: string[];
  exited: Promise<number | null>;
  kill(sig: NodeJS.Signals): void;
  waitFor(event: string): Promise<void>;
}

function startOperator(namespace: string): Operator {
  const child = spawn(process.execPath, [operatorScript, join(buildDir, 'dist/index.js'), env.kubeconfigPath, namespace], {
    cwd: buildDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: string[] = [];
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.on('data', (c: Buffer) => {
    buffered += c.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line) events.push((JSON.parse(line) as { event: string }).event);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    events,
    exited,
    kill: (sig) => child.kill(sig),
    async waitFor(event) {
      const deadline = Date.now() + 30_000;
      while (!events.includes(event)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`operator never said "${event}"; events ${JSON.stringify(events)}; stderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

describe('setupSignalHandler', () => {
  it('SIGTERM drains the reconcile in flight, then the process exits cleanly', async () => {
    await client.create(Namespace, { metadata: { name: 'sigterm' } });
    const op = startOperator('sigterm');
    await op.waitFor('ready');
    await client.create(Guestbook, { metadata: { name: 'a', namespace: 'sigterm' }, spec: {} });
    await op.waitFor('start a');
    op.kill('SIGTERM');
    expect(await op.exited).toBe(0);
    expect(op.events).toEqual(['ready', 'start a', 'signal', 'end a', 'stopped']);
  });

  it('a second signal exits at once without waiting', async () => {
    await client.create(Namespace, { metadata: { name: 'sigterm-twice' } });
    const op = startOperator('sigterm-twice');
    await op.waitFor('ready');
    await client.create(Guestbook, { metadata: { name: 'b', namespace: 'sigterm-twice' }, spec: {} });
    await op.waitFor('start b');
    op.kill('SIGTERM');
    await op.waitFor('signal');
    op.kill('SIGINT');
    expect(await op.exited).toBe(1);
    expect(op.events).toEqual(['ready', 'start b', 'signal']);
  });
});
