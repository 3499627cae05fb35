// The Node counterpart of the process and runtime collectors a Go operator exposes: process_* with the
// Prometheus client libraries' names (the same as Go's and prom-client's), nodejs_* for V8's heap.
// Read at scrape time; the /proc files exist on Linux only, elsewhere those series are left out.
import { readFileSync, readdirSync } from 'node:fs';
import type { MetricsRegistry } from './registry.js';

function procStatusBytes(status: string, field: string): number | undefined {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : undefined;
}

function readOr<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

export function registerProcessMetrics(registry: MetricsRegistry): void {
  const linux = process.platform === 'linux';
  const startTime = Math.round(Date.now() / 1000 - process.uptime());
  const cpuUser = registry.counter({ name: 'process_cpu_user_seconds_total', help: 'Total user CPU time spent in seconds.' }).labels();
  const cpuSystem = registry.counter({ name: 'process_cpu_system_seconds_total', help: 'Total system CPU time spent in seconds.' }).labels();
  const cpuTotal = registry.counter({ name: 'process_cpu_seconds_total', help: 'Total user and system CPU time spent in seconds.' }).labels();
  registry.gauge({ name: 'process_start_time_seconds', help: 'Start time of the process since unix epoch in seconds.' }).labels().set(startTime);
  const rss = registry.gauge({ name: 'process_resident_memory_bytes', help: 'Resident memory size in bytes.' }).labels();
  const virtual = linux ? registry.gauge({ name: 'process_virtual_memory_bytes', help: 'Virtual memory size in bytes.' }).labels() : undefined;
  const heap = linux ? registry.gauge({ name: 'process_heap_bytes', help: 'Process heap size in bytes.' }).labels() : undefined;
  const openFds = linux ? registry.gauge({ name: 'process_open_fds', help: 'Number of open file descriptors.' }).labels() : undefined;
  const maxFds = linux ? registry.gauge({ name: 'process_max_fds', help: 'Maximum number of open file descriptors.' }).labels() : undefined;
  const heapTotal = registry.gauge({ name: 'nodejs_heap_size_total_bytes', help: 'Process heap size from Node.js in bytes.' }).labels();
  const heapUsed = registry.gauge({ name: 'nodejs_heap_size_used_bytes', help: 'Process heap size used from Node.js in bytes.' }).labels();
  const external = registry.gauge({ name: 'nodejs_external_memory_bytes', help: 'Node.js external memory size in bytes.' }).labels();
  const [major, minor, patch] = process.versions.node.split('.');
  registry
    .gauge({ name: 'nodejs_version_info', help: 'Node.js version info.', labelNames: ['version', 'major', 'minor', 'patch'] })
    .set({ version: process.version, major: major ?? '', minor: minor ?? '', patch: patch ?? '' }, 1);

  let last = { user: 0, system: 0 };
  registry.onScrape(() => {
    // Counters only go up: add what was spent since the previous scrape.
    const cpu = process.cpuUsage();
    cpuUser.inc((cpu.user - last.user) / 1e6);
    cpuSystem.inc((cpu.system - last.system) / 1e6);
    cpuTotal.inc((cpu.user - last.user + cpu.system - last.system) / 1e6);
    last = cpu;
    const mem = process.memoryUsage();
    rss.set(mem.rss);
    heapTotal.set(mem.heapTotal);
    heapUsed.set(mem.heapUsed);
    external.set(mem.external);
    if (!linux) return;
    const status = readOr(() => readFileSync('/proc/self/status', 'utf8')) ?? '';
    const vm = procStatusBytes(status, 'VmSize');
    const data = procStatusBytes(status, 'VmData');
    if (vm !== undefined) virtual?.set(vm);
    if (data !== undefined) heap?.set(data);
    const fds = readOr(() => readdirSync('/proc/self/fd').length);
    if (fds !== undefined) openFds?.set(fds - 1); // less the descriptor readdir itself held open
    const limit = readOr(() => /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1]);
    if (limit) maxFds?.set(Number(limit));
  });
}
