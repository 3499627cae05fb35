// Sharded replicas as real processes for sharding.test.ts and partition.test.ts: the runtime compiled
// by tsc once per test file, and one node process per replica running testdata/replica.mjs, whose
// reconciles, gauges and ownership spans arrive as JSON lines on stdout.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import type { OwnershipEvent } from '../sharding.js';
import type { Reconcile } from './spans.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const replicaScript = fileURLToPath(new URL('./replica.mjs', import.meta.url));

/** Compiles the runtime for the replicas before the file's tests; answers the build directory. */
export function useRuntimeBuild(): () => string {
  let buildDir = '';
  beforeAll(() => {
    buildDir = mkdtempSync(join(tmpdir(), 'opgen-sharding-build-'));
    symlinkSync(join(repo, 'node_modules'), join(buildDir, 'node_modules'));
    execFileSync(join(repo, 'node_modules/.bin/tsc'), ['-p', join(repo, 'runtime/tsconfig.build.json'), '--outDir', join(buildDir, 'dist')], { stdio: 'pipe' });
  }, 240_000);
  afterAll(() => {
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });
  return () => buildDir;
}

export type Gauges = Record<string, number>;

export class Replica {
  readonly gauges: Gauges = {};
  stderr = '';
  exitCode?: number | null;
  killedAt?: number;
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;

  constructor(readonly id: string, buildDir: string, kubeconfigPath: string, namespace: string, sink: Reconcile[], spans: OwnershipEvent[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [replicaScript, join(buildDir, 'dist/index.js'), kubeconfigPath, namespace, id], {
      cwd: buildDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OPGEN_LOG: 'info', OPGEN_RECONCILE_MS: '20', ...env },
    });
    let buffered = '';
    this.child.stdout!.on('data', (c: Buffer) => {
      buffered += c.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (!line) continue;
        const msg = JSON.parse(line) as Reconcile | { m: Gauges } | { o: OwnershipEvent };
        if ('m' in msg) Object.assign(this.gauges, msg.m);
        else if ('o' in msg) spans.push(msg.o);
        else sink.push(msg);
      }
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => ((this.exitCode = code), resolve())));
  }

  kill(signal: NodeJS.Signals): void {
    if (signal === 'SIGKILL') this.killedAt = performance.timeOrigin + performance.now();
    this.child.kill(signal);
  }

  /** The ring changes this replica logged (the manager's JSON log lines on stderr). */
  ringChanges(): string[] {
    return this.stderr.split('\n').filter((l) => l.includes('"shard ring changed"'));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 100 ms; answers how long it took, or fails naming what it waited for (with `debug()`). */
export async function until(what: string, ms: number, check: () => boolean | Promise<boolean>, debug: () => string = () => ''): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await check()) return performance.now() - start;
    if (performance.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}\n${debug()}`);
    await sleep(100);
  }
}
