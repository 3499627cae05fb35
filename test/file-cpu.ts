// Records how much CPU each test file cost, for bench/suite/slowest.mjs: the worker's own time (vitest
// forks a fresh process per file, so loading and transforming count too) plus the child processes it ran
// and reaped (kube-apiserver, etcd, helm, tsc, go), which is where most of a file's cost is. Linux reads
// both from /proc/self/stat; elsewhere only the worker's own time is known.
import { readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux ABI Node supports

function cpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after "(comm)": state is field 3, utime/stime/cutime/cstime are fields 14-17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0);
    return ticks / TICKS_PER_SECOND;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
}

// eslint-disable-next-line no-empty-pattern -- vitest reads the first parameter as a fixture pattern
afterAll(({}, suite) => {
  suite.meta.cpuSeconds = cpuSeconds();
});
