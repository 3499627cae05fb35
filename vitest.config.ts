import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const runtimeSrc = fileURLToPath(new URL('./runtime/src/', import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run the runtime from source; e2e tests use packed tarballs instead.
    alias: [
      { find: /^@opgen\/runtime$/, replacement: `${runtimeSrc}index.ts` },
      { find: /^@opgen\/runtime\/envtest$/, replacement: `${runtimeSrc}envtest/index.ts` },
      { find: /^@opgen\/runtime\/pluralize$/, replacement: `${runtimeSrc}api/pluralize.ts` },
      { find: /^@opgen\/runtime\/kubernetes$/, replacement: `${runtimeSrc}kubernetes/index.ts` },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'runtime/src/**/*.test.ts', 'test/**/*.test.ts', 'e2e/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/file-cpu.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
