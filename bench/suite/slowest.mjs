#!/usr/bin/env node
// Prints the slowest test files of the last `npm test` (or `vitest run`): wall and CPU seconds per file,
// the 20 slowest by wall time (or `--top N`, `--by cpu`), and the sums. test/summary-reporter.ts writes the
// figures to .vitest-tmp/file-timings.json at the end of every run; CPU includes the child processes a file
// ran (API servers, helm, tsc, go builds) on Linux.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const top = Number(flag('--top', '20'));
const by = flag('--by', 'wall') === 'cpu' ? 'cpuSeconds' : 'wallSeconds';
const path = flag('--file', '.vitest-tmp/file-timings.json');

let timings;
try {
  timings = JSON.parse(readFileSync(path, 'utf8'));
} catch {
  console.error(`slowest: ${path} not found; run npm test (or npx vitest run) first, it writes the file`);
  process.exit(1);
}
const sum = (key) => timings.reduce((s, t) => s + (t[key] ?? 0), 0);
const fmt = (n) => (n === undefined ? '-' : n.toFixed(1)).padStart(8);
timings.sort((a, b) => (b[by] ?? 0) - (a[by] ?? 0));
console.log(`${'wall s'.padStart(8)}${'cpu s'.padStart(8)}  file`);
for (const t of timings.slice(0, top)) console.log(`${fmt(t.wallSeconds)}${fmt(t.cpuSeconds)}  ${t.file}${t.state === 'failed' ? '  (failed)' : ''}`);
console.log(`${fmt(sum('wallSeconds'))}${fmt(sum('cpuSeconds'))}  sum over ${timings.length} files (wall sums overlap: files run in parallel workers)`);
