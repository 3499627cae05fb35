// Progress lines for the slow steps (a ~60 MB download, a build of several minutes). A terminal gets one
// line rewritten in place; a log (CI, vitest's captured stderr) gets a line per step of 10 %, or per
// `everyMs` for steps without a known total, so nothing is silent for long and nothing floods.
export interface ProgressSink {
  /** Free text: what is happening now. */
  note(message: string): void;
  /** `done` of `total` units (total 0 = unknown); the label says of what. */
  step(label: string, done: number, total: number, unit?: 'bytes' | 'packages'): void;
  /** Ends a line of steps. */
  end(message?: string): void;
}

export type ProgressWriter = (text: string) => void;

function amount(n: number, unit: 'bytes' | 'packages'): string {
  return unit === 'bytes' ? `${(n / 1e6).toFixed(1)} MB` : `${n}`;
}

export function progressTo(write: ProgressWriter, opts: { tty?: boolean; everyMs?: number; prefix?: string } = {}): ProgressSink {
  const tty = opts.tty ?? false;
  const everyMs = opts.everyMs ?? 15_000;
  const prefix = opts.prefix ?? 'envtest: ';
  let lastTenth = -1;
  let lastAt = 0;
  let open = false;
  return {
    note(message) {
      if (open) write('\n');
      open = false;
      write(`${prefix}${message}\n`);
    },
    step(label, done, total, unit = 'bytes') {
      const pct = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : -1;
      const text = total > 0
        ? `${prefix}${label}: ${amount(done, unit)} of ${amount(total, unit)} (${pct}%)`
        : `${prefix}${label}: ${amount(done, unit)}`;
      if (tty) {
        write(`\r${text}\x1b[K`);
        open = true;
        return;
      }
      const now = Date.now();
      const tenth = pct >= 0 ? Math.floor(pct / 10) : -1;
      if ((pct >= 0 && tenth !== lastTenth) || (pct < 0 && now - lastAt >= everyMs)) {
        lastTenth = tenth;
        lastAt = now;
        write(`${text}\n`);
      }
    },
    end(message) {
      if (open) write('\n');
      open = false;
      lastTenth = -1;
      lastAt = 0;
      if (message) write(`${prefix}${message}\n`);
    },
  };
}

/** The default: this process's stderr. */
export function stderrProgress(): ProgressSink {
  return progressTo((t) => process.stderr.write(t), { tty: process.stderr.isTTY === true });
}

/** Reports nothing (quiet option). */
export const silentProgress: ProgressSink = { note() {}, step() {}, end() {} };
