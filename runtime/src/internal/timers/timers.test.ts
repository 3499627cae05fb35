import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { maxTimerDelayMs, setRepeatingTimer, setTimer, sleep, timeoutSignal } from './index.js';

const day = 24 * 60 * 60 * 1000;
const realSleep = (ms: number) => new Promise((r) => globalThis.setTimeout(r, ms));

afterEach(() => {
  vi.useRealTimers();
});

describe('timers', () => {
  it("Node's own setTimeout fires a 30-day delay at once (the fault this helper exists for); setTimer does not", async () => {
    let raw = 0;
    let ours = 0;
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {}); // TimeoutOverflowWarning
    const rawTimer = globalThis.setTimeout(() => raw++, 30 * day);
    const timer = setTimer(() => ours++, 30 * day);
    try {
      await realSleep(100);
      expect(raw).toBe(1);
      expect(ours).toBe(0);
    } finally {
      globalThis.clearTimeout(rawTimer);
      timer.clear();
      warn.mockRestore();
    }
  });

  it('chains Node timers to fire a long delay once, on time', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const fired: number[] = [];
    const start = performance.now();
    setTimer(() => fired.push(performance.now() - start), 30 * day);
    vi.advanceTimersByTime(maxTimerDelayMs);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(30 * day - maxTimerDelayMs - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([30 * day]);
    vi.advanceTimersByTime(100 * day);
    expect(fired).toHaveLength(1);
  });

  it('a short delay is one Node timer; clear() cancels, also between links of a chain', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let short = 0;
    setTimer(() => short++, 50);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(50);
    expect(short).toBe(1);

    let long = 0;
    const t = setTimer(() => long++, 60 * day);
    vi.advanceTimersByTime(maxTimerDelayMs + 1); // into the second link
    t.clear();
    vi.advanceTimersByTime(60 * day);
    expect(long).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('Infinity never fires; zero, negative and NaN delays fire after 1 ms as in Node', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const fired: string[] = [];
    setTimer(() => fired.push('inf'), Infinity);
    for (const d of [0, -5, Number.NaN]) setTimer(() => fired.push(String(d)), d);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['0', '-5', 'NaN']);
    vi.advanceTimersByTime(1000 * day);
    expect(fired).toEqual(['0', '-5', 'NaN']);
  });

  it('setRepeatingTimer repeats every period, long periods included, until cleared from inside', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let n = 0;
    const t = setRepeatingTimer(() => {
      if (++n === 3) t.clear();
    }, 40 * day);
    vi.advanceTimersByTime(40 * day - 1);
    expect(n).toBe(0);
    vi.advanceTimersByTime(1);
    expect(n).toBe(1);
    vi.advanceTimersByTime(200 * day);
    expect(n).toBe(3);
  });

  it('sleep resolves true after the delay, false when the signal aborts (or already had)', async () => {
    expect(await sleep(5)).toBe(true);
    const ac = new AbortController();
    const pending = sleep(30 * day, ac.signal);
    ac.abort();
    expect(await pending).toBe(false);
    expect(await sleep(10, ac.signal)).toBe(false);
  });

  it('timeoutSignal aborts with a TimeoutError, like AbortSignal.timeout, and not for a long delay', async () => {
    const s = timeoutSignal(5);
    await realSleep(50);
    expect(s.aborted).toBe(true);
    expect((s.reason as DOMException).name).toBe('TimeoutError');
    const long = timeoutSignal(30 * day);
    await realSleep(50);
    expect(long.aborted).toBe(false);
  });
});

// The rule this folder exists for: no other runtime module arms a Node timer itself. envtest is test
// tooling with fixed delays under a minute, and testdata/ is test support.
describe('every timer in the runtime goes through internal/timers', () => {
  const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return ['testdata', 'envtest', 'timers'].includes(e.name) ? [] : files(path);
      return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
    });

  it('no setTimeout, setInterval, AbortSignal.timeout or node:timers outside it', () => {
    const raw = /\b(setTimeout|setInterval|AbortSignal\.timeout)\s*\(|['"]node:timers(\/promises)?['"]/;
    const offenders = files(srcDir).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(srcDir, file)}:${i + 1}` }))
        .filter(({ line }) => !/^\s*(\/\/|\*)/.test(line) && raw.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
