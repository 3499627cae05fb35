// The operator processes of `opgen dev`. A restart is fast by design: the next process (a "spare") is
// started ahead of time with Node and @opgen/runtime loaded (spare-gate.ts), so on a change dev only
// waits for the old process to exit and lets the spare run dist/main.js.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** On exit (Ctrl-C) the operator gets this long to stop and restore webhooks before SIGKILL. */
export const STOP_GRACE_MS = 10_000;
/**
 * On a restart without webhooks the old operator gets this long to finish its in-flight reconciles.
 * Then it gets a second SIGTERM, which the runtime's signal handler takes as "stop now" (process.exit).
 */
export const RESTART_DRAIN_MS = 1_000;
/** The next spare starts this long after a restart, so that it does not compete with the new operator's start. */
const SPARE_DELAY_MS = 1_500;

const GATE = fileURLToPath(new URL('./spare-gate.js', import.meta.url));

export interface OperatorSpec {
  root: string;
  env: NodeJS.ProcessEnv;
  args: string[];
  out: (line: string) => void;
  err: (line: string) => void;
}

export class Operators {
  private spare: ChildProcess | undefined;
  private spareTimer: NodeJS.Timeout | undefined;
  private readonly preload: string;
  active: ChildProcess | undefined;

  constructor(private readonly spec: OperatorSpec) {
    if (!existsSync(GATE)) throw new Error(`${GATE} is missing: opgen is not built (npm run build)`);
    // The project's @opgen/runtime, the copy dist/main.js imports (so the preloaded module is the one reused).
    this.preload = pathToFileURL(createRequire(join(spec.root, 'package.json')).resolve('@opgen/runtime')).href;
  }

  /** Starts dist/main.js in the spare (or a new process if there is none), and a new spare a little later. */
  activate(): ChildProcess {
    const next = this.spare && this.spare.exitCode === null && this.spare.signalCode === null ? this.spare : this.spawn();
    this.spare = undefined;
    next.stdin!.end('go\n');
    this.active = next;
    clearTimeout(this.spareTimer);
    this.spareTimer = setTimeout(() => (this.spare = this.spawn()), SPARE_DELAY_MS);
    return next;
  }

  /** Stops the active operator for a restart; `quick`: a second SIGTERM after RESTART_DRAIN_MS. */
  async retire(quick: boolean): Promise<void> {
    const old = this.active;
    this.active = undefined;
    await stop(old, quick ? RESTART_DRAIN_MS : STOP_GRACE_MS);
  }

  /** Stops everything (dev's exit): the operator gracefully, the spare at once. */
  async close(): Promise<void> {
    clearTimeout(this.spareTimer);
    const spare = this.spare;
    this.spare = undefined;
    await Promise.all([stop(this.active, STOP_GRACE_MS), stop(spare, 0)]);
  }

  private spawn(): ChildProcess {
    const { root, env, args, out, err } = this.spec;
    const c = spawn(process.execPath, ['--enable-source-maps', '--import', pathToFileURL(GATE).href, 'dist/main.js', ...args], {
      cwd: root,
      env: { ...env, OPGEN_DEV_PRELOAD: this.preload },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C in the terminal reaches dev only, which stops the operator once,
      // in order (a second signal would make the runtime exit without restoring webhooks).
      detached: true,
    });
    // A spare killed before it ran has nothing to say; a write to its closed stdin is not an error.
    c.stdin!.on('error', () => {});
    lines(c.stdout!, out);
    lines(c.stderr!, err);
    return c;
  }
}

/**
 * SIGTERM; after `secondAfterMs` a second SIGTERM (the runtime then exits at once; 0: SIGKILL at once
 * for a spare that runs nothing), and SIGKILL after STOP_GRACE_MS. Resolves when the process has exited.
 */
export function stop(c: ChildProcess | undefined, secondAfterMs: number): Promise<void> {
  if (!c || c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timers = [
      setTimeout(() => c.kill(secondAfterMs === 0 ? 'SIGKILL' : 'SIGTERM'), secondAfterMs),
      setTimeout(() => c.kill('SIGKILL'), Math.max(secondAfterMs, STOP_GRACE_MS)),
    ];
    c.once('exit', () => {
      for (const t of timers) clearTimeout(t);
      resolve();
    });
    if (secondAfterMs > 0) c.kill('SIGTERM');
  });
}

/** Calls `out` for each line of a stream as it arrives. */
export function lines(stream: NodeJS.ReadableStream, out: (line: string) => void): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) out(p);
  });
  stream.on('end', () => {
    if (rest !== '') out(rest);
  });
}
