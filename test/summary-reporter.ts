// Prints one closing line, `tests: N passed, N failed, N skipped`, after vitest's own summary so CI
// logs state the count in a form any reader (human or tool) can take at a glance. It also leaves each
// file's wall and CPU time in .vitest-tmp/file-timings.json for bench/suite/slowest.mjs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export interface FileTiming {
  file: string;
  wallSeconds: number;
  cpuSeconds?: number;
  state: string;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const mod of testModules) {
      const failedBefore = counts.failed;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
      // A file that failed to load, or whose beforeAll/afterAll threw, is a failure even when every test
      // in it passed.
      if (mod.state() === 'failed' && counts.failed === failedBefore) counts.failed++;
    }
    writeTimings(testModules);
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}

function writeTimings(testModules: ReadonlyArray<TestModule>): void {
  const timings: FileTiming[] = testModules.map((mod) => ({
    file: relative(process.cwd(), mod.moduleId),
    wallSeconds: round(mod.diagnostic().duration / 1000),
    cpuSeconds: mod.meta().cpuSeconds === undefined ? undefined : round(mod.meta().cpuSeconds as number),
    state: mod.state(),
  }));
  mkdirSync('.vitest-tmp', { recursive: true });
  writeFileSync('.vitest-tmp/file-timings.json', `${JSON.stringify(timings, null, 1)}\n`);
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}
