// Test support (excluded from the build with the rest of testdata/).
import { readdirSync, readFileSync } from 'node:fs';

/** PIDs of live processes whose command line mentions `text` (an environment's temp folder). */
export function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // A zombie's cmdline is empty, so only processes that still run are counted.
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch { /* exited while scanning */ }
  }
  return pids;
}
