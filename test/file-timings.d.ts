// The per-file CPU figure test/file-cpu.ts leaves for the summary reporter.
declare module 'vitest' {
  interface TaskMeta {
    cpuSeconds?: number;
  }
}
export {};
