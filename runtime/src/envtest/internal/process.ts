// Control-plane processes run in their own process groups (detached) so one signal reaches
// everything they start. Three layers make sure none outlives the test process:
//  1. stop() terminates them in order (SIGTERM, then SIGKILL after a deadline);
//  2. 'exit', SIGINT and SIGTERM handlers in this process SIGKILL whatever is still registered;
//  3. a tiny detached Node reaper per environment reads from a pipe whose writing end only this
//     process holds: if this process dies without running handlers (SIGKILL, OOM), the pipe
//     closes and the reaper kills the groups and removes the temp folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

export interface Spawned {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logPath: string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<string>;
  hasExited(): boolean;
  stop(timeoutMs: number): Promise<void>;
}

const liveGroups = new Set<number>();
const liveFolders = new Set<string>();
let handlersInstalled = false;

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try { process.kill(-pgid, signal); } catch { /* already gone */ }
}

function emergencyCleanup(): void {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
  liveGroups.clear();
  for (const folder of liveFolders) rmSync(folder, { recursive: true, force: true });
  liveFolders.clear();
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', emergencyCleanup);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      emergencyCleanup();
      // Adding a listener cancels Node's default "exit on signal"; restore it when we were the only one.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

export function trackFolder(folder: string): void { installHandlers(); liveFolders.add(folder); }
export function untrackFolder(folder: string): void { liveFolders.delete(folder); }

export interface SpawnOptions { logPath: string; attachLogs: boolean; reaper?: Reaper }

export function spawnGroup(name: string, binary: string, args: string[], opts: SpawnOptions): Spawned {
  installHandlers();
  const logFd = openSync(opts.logPath, 'a');
  const child = spawn(binary, args, {
    detached: true,
    stdio: ['ignore', opts.attachLogs ? 'pipe' : logFd, opts.attachLogs ? 'pipe' : logFd],
  });
  closeSync(logFd);
  if (opts.attachLogs) {
    // Mirror to this process's stderr and keep the log file complete for error messages.
    const mirror = (chunk: Buffer) => {
      process.stderr.write(chunk.toString().replace(/^(?=.)/gm, `[${name}] `));
      const fd = openSync(opts.logPath, 'a');
      try { writeSync(fd, chunk); } finally { closeSync(fd); }
    };
    child.stdout?.on('data', mirror);
    child.stderr?.on('data', mirror);
    // Like the child itself, its pipes must not keep a finished test process alive.
    for (const pipe of [child.stdout, child.stderr]) (pipe as unknown as { unref?: () => void } | null)?.unref?.();
  }
  const pgid = child.pid;
  let exitedFlag = false;
  let stopping: Promise<void> | undefined;
  const exited = new Promise<string>((resolve) => {
    child.once('error', (err) => { exitedFlag = true; resolve(`spawn error: ${err.message}`); });
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      // etcd and kube-apiserver start no children: once the leader is gone, so is the group, and its
      // id may later be reused by an unrelated process, so no handler may signal it any more.
      if (pgid !== undefined) { liveGroups.delete(pgid); opts.reaper?.forget(pgid); }
      resolve(signal ?? String(code));
    });
  });
  if (pgid !== undefined) {
    liveGroups.add(pgid);
    opts.reaper?.watch(pgid);
  }
  // The test process must be free to exit while these run; stop() and the handlers end them.
  child.unref();

  return {
    name, child, logPath: opts.logPath, exited,
    hasExited: () => exitedFlag,
    stop(timeoutMs: number) {
      stopping ??= (async () => {
        if (pgid === undefined) return;
        if (!exitedFlag) {
          killGroup(pgid, 'SIGTERM');
          let timer: NodeJS.Timeout | undefined;
          const timedOut = await Promise.race([
            exited.then(() => false),
            new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(true), timeoutMs); }),
          ]);
          clearTimeout(timer);
          if (timedOut) {
            killGroup(pgid, 'SIGKILL');
            await exited;
          }
          // Anything the leader started is in the same group; right after its exit the id is not reused yet.
          killGroup(pgid, 'SIGKILL');
        }
        liveGroups.delete(pgid);
      })();
      return stopping;
    },
  };
}

/**
 * The part of a log that explains a failure: Go programs often print the error first and a long
 * usage text after it (flag errors), or the error last (start-up failures), so both ends are kept:
 * up to 5 earlier error-like lines, then the last `lines` lines.
 */
export function logTail(path: string, lines = 12): string {
  let all: string[];
  try {
    all = readFileSync(path, 'utf8').trimEnd().split('\n');
  } catch {
    return '(no output)';
  }
  const tail = all.slice(-lines);
  const earlier = all.slice(0, -lines).filter((l) => /error|fatal|failed|panic|not defined|unknown flag/i.test(l)).slice(0, 5);
  return [...earlier, ...(earlier.length > 0 ? ['...'] : []), ...tail].join('\n');
}

// Runs in a separate Node process (Node is the one runtime certain to be there; `sh` kill builtins
// differ on negative process-group ids).
const REAPER_SCRIPT = `
const { rmSync } = require('node:fs');
const groups = []; let folder = ''; let buffer = '';
const killAll = (signal) => { for (const g of groups) { try { process.kill(-g, signal); } catch {} } };
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let i = buffer.indexOf('\\n'); i >= 0; i = buffer.indexOf('\\n')) {
    const [cmd, ...rest] = buffer.slice(0, i).split(' '); buffer = buffer.slice(i + 1);
    const arg = rest.join(' ');
    if (cmd === 'group') groups.push(Number(arg));
    else if (cmd === 'ungroup') { const i = groups.indexOf(Number(arg)); if (i >= 0) groups.splice(i, 1); }
    else if (cmd === 'dir') folder = arg;
    else if (cmd === 'done') process.exit(0);
  }
});
process.stdin.on('end', () => {
  killAll('SIGTERM');
  setTimeout(() => { killAll('SIGKILL'); if (folder) rmSync(folder, { recursive: true, force: true }); process.exit(0); }, 2000);
});
`;

export class Reaper {
  private readonly child: ChildProcess;

  constructor(folder: string) {
    this.child = spawn(process.execPath, ['-e', REAPER_SCRIPT], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      // The test process's NODE_OPTIONS (--inspect, loaders, test-runner hooks) are not for the reaper.
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    this.child.on('error', () => { /* best effort: the in-process handlers still apply */ });
    this.child.stdin?.on('error', () => {});
    this.child.unref();
    (this.child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.send(`dir ${folder}`);
  }

  watch(pgid: number): void { this.send(`group ${pgid}`); }
  forget(pgid: number): void { this.send(`ungroup ${pgid}`); }

  /** Normal shutdown: the reaper exits without touching anything. */
  dismiss(): void {
    this.send('done');
    this.child.stdin?.end();
  }

  private send(line: string): void {
    if (this.child.stdin?.writable) this.child.stdin.write(`${line}\n`);
  }
}
