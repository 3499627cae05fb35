// One download or build per cache folder at a time, across processes (vitest forks one worker per test
// file and each may start a test environment). mkdir is atomic on every platform node runs on; the
// owner's pid in the lock lets a waiter take over a lock whose owner died.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
}

export async function withLock<T>(lockDir: string, onWait: () => void, fn: () => Promise<T>): Promise<T> {
  let told = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let owner = NaN;
      try { owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8')); } catch { /* being written or removed */ }
      if (Number.isInteger(owner) && owner > 0 && !alive(owner)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!told) { onWait(); told = true; }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
