// The type check of `opgen dev`: a restart only transpiles (no types), so `tsc --watch --noEmit` on the
// project's tsconfig.json runs beside it, at a low CPU priority so that it does not slow the new
// operator's start, and its findings go to the log as file:line:column lines. It starts at the first
// change: the first build has just checked everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { lines, stop } from './operator.js';

/** `nice` 10: the type check gets the CPU the operator leaves. */
const LOW_PRIORITY = 10;

export class TypeCheck {
  private tsc: ChildProcess | undefined;

  constructor(
    private readonly root: string,
    private readonly err: (line: string) => void,
    /** The sources that do not parse, which kept dev from restarting (then the new code does not run). */
    private readonly unparsed: () => string[],
  ) {}

  /** Starts the watch if it is not running yet; it sees each later change itself. */
  ensureRunning(): void {
    if (this.tsc) return;
    const tsc = spawn(process.execPath, [join(this.root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit', '--watch', '--preserveWatchOutput', '--pretty', 'false'], {
      cwd: this.root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    lowerPriority(tsc);
    lines(tsc.stdout!, (l) => this.report(l));
    lines(tsc.stderr!, (l) => this.err(`dev: type check: ${l}`));
    this.tsc = tsc;
  }

  async close(): Promise<void> {
    await stop(this.tsc, 0);
  }

  private report(line: string): void {
    const diagnostic = /^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$/.exec(line);
    if (diagnostic) {
      const [, file, l, c, severity, code, message] = diagnostic;
      this.err(`dev: ${file}:${l}:${c}: ${severity} ${code}: ${message}`);
      return;
    }
    const found = /Found (\d+) errors?/.exec(line);
    if (found) {
      const n = Number(found[1]);
      const errors = `${n} error${n === 1 ? '' : 's'}`;
      const unparsed = this.unparsed();
      if (n === 0) this.err('dev: type check: no errors');
      else if (unparsed.length > 0) this.err(`dev: type check: ${errors} (not restarted: ${unparsed.join(', ')} ${unparsed.length === 1 ? 'does' : 'do'} not parse; the operator runs the previous code)`);
      else this.err(`dev: type check: ${errors} (the operator runs the transpiled code anyway; fix and save)`);
      return;
    }
    // The rest of a multi-line message; tsc's own "File change detected" lines are left out.
    if (/^\s+\S/.test(line)) this.err(`dev: ${line}`);
  }
}

/** Lowers a child's CPU priority; where the OS refuses, it runs at normal priority. */
export function lowerPriority(c: ChildProcess): void {
  try {
    if (c.pid !== undefined) setPriority(c.pid, LOW_PRIORITY);
  } catch {
    // Not allowed here (some containers): the child only competes a little more for the CPU.
  }
}
