import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from './queue.js';
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, defaultControllerRateLimiter } from './rate-limiter.js';

const noLimit = { when: () => 0, forget: () => {}, numRequeues: () => 0 };

describe('WorkQueue', () => {
  it('hands out a key added several times only once', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit });
    q.add('ns/a');
    q.add('ns/b');
    q.add('ns/a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('ns/a');
    expect(await q.get()).toBe('ns/b');
    expect(q.length).toBe(0);
  });

  it('never gives the same key to two workers: a re-add during processing waits for done()', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit });
    q.add('ns/a');
    const first = await q.get();
    q.add('ns/a');
    expect(q.length).toBe(0);
    let second: string | undefined;
    const pending = q.get().then((k) => (second = k));
    await new Promise((r) => setTimeout(r, 10));
    expect(second).toBeUndefined();
    q.done(first!);
    await pending;
    expect(second).toBe('ns/a');
  });

  // The reconciler's status write answers on one connection (an I/O callback) and the reconcile ends
  // there; the watch event for that write lands on another connection right after, or a few ms later
  // (the API server sends it after the response). The key must not go back to a worker before that
  // event has been read, or the next reconcile reads a stale cache.
  for (const [when, delayMs] of [['right after', 0], ['2 ms after', 2]] as const) {
    it(`hands a key added during processing back only after a watch event sent ${when} the reconcile ended has been read`, async () => {
      const server = createServer();
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const port = (server.address() as { port: number }).port;
      const accepted: Socket[] = [];
      server.on('connection', (s) => accepted.push(s));
      const response = connect(port, '127.0.0.1');
      const watch = connect(port, '127.0.0.1');
      await Promise.all([once(response, 'connect'), once(watch, 'connect')]);
      while (accepted.length < 2) await new Promise((r) => setImmediate(r));
      // The server's end of a client's connection (they may be accepted in either order).
      const serverSide = (client: Socket) => accepted.find((s) => s.remotePort === client.localPort)!;

      const q = new WorkQueue<string>({ rateLimiter: noLimit });
      q.add('ns/a');
      const key = await q.get();
      q.add('ns/a'); // e.g. the event of the ConfigMap this reconcile created: the key is dirty
      const order: string[] = [];
      const handedOut = q.get().then((k) => order.push(`handed out ${k}`));
      watch.on('data', () => order.push('watch event read'));
      response.once('data', () => {
        const sendEvent = () => serverSide(watch).write('MODIFIED\n');
        if (delayMs === 0) sendEvent();
        else setTimeout(sendEvent, delayMs);
        q.done(key!);
      });
      serverSide(response).write('200 OK\n');
      await handedOut;
      await new Promise((r) => setTimeout(r, 20));
      expect(order).toEqual(['watch event read', 'handed out ns/a']);
      q.done('ns/a');
      q.shutDown();
      for (const s of [response, watch, ...accepted]) s.destroy();
      server.close();
    });
  }

  it('folds adds into a key that waits for the loop after done(), and drops it if the queue shuts down meanwhile', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit });
    q.add('ns/a');
    q.add('ns/b');
    const a = await q.get();
    q.add('ns/a');
    q.done(a!);
    q.add('ns/a');
    q.add('ns/a');
    expect(await q.get()).toBe('ns/b');
    expect(await q.get()).toBe('ns/a');
    q.done('ns/b');
    const again = await Promise.race([q.get(), new Promise((r) => setTimeout(() => r('nothing'), 30))]);
    expect(again).toBe('nothing');

    q.add('ns/a');
    q.done('ns/a');
    q.shutDown();
    await new Promise((r) => setTimeout(r, 10));
    expect(q.length).toBe(0);
  });

  it('addAfter delays the key, and an earlier pending delay wins', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit });
    const t0 = Date.now();
    q.addAfter('ns/a', 200);
    q.addAfter('ns/a', 30);
    expect(q.length).toBe(0);
    expect(await q.get()).toBe('ns/a');
    const waited = Date.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(25);
    expect(waited).toBeLessThan(190);
    q.done('ns/a');
  });

  it('shutDown releases waiting workers and drops delayed keys', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit });
    const waiting = q.get();
    q.addAfter('ns/late', 10);
    q.shutDown();
    expect(await waiting).toBeUndefined();
    q.add('ns/x');
    expect(await q.get()).toBeUndefined();
  });

  it('addRateLimited backs off per key and forget resets it', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    const q = new WorkQueue<string>({ rateLimiter: limiter });
    q.addRateLimited('ns/a');
    q.addRateLimited('ns/a');
    q.addRateLimited('ns/a');
    expect(q.numRequeues('ns/a')).toBe(3);
    q.forget('ns/a');
    expect(q.numRequeues('ns/a')).toBe(0);
    q.shutDown();
  });

  it('reports adds, retries and depth to its metrics', async () => {
    const seen = { add: 0, retry: 0, depth: [] as number[], queue: 0, work: 0 };
    const q = new WorkQueue<string>({
      rateLimiter: noLimit,
      metrics: {
        add: () => seen.add++,
        retry: () => seen.retry++,
        depth: (n) => seen.depth.push(n),
        queueDuration: () => seen.queue++,
        workDuration: () => seen.work++,
      },
    });
    q.add('a');
    q.add('b');
    q.addRateLimited('c');
    // Only an add with a delay is a retry (controller-runtime v0.24's priority queue): 'c' had none.
    q.addAfter('d', 60_000);
    const k = await q.get();
    q.done(k!);
    expect(seen.add).toBe(3);
    expect(seen.retry).toBe(1);
    expect(seen.depth.slice(0, 2)).toEqual([1, 2]);
    expect(seen.queue).toBe(1);
    expect(seen.work).toBe(1);
    q.shutDown();
  });
});

describe('WorkQueue priorities (controller-runtime\'s priority queue)', () => {
  it('hands out higher priorities first and keeps first-in, first-out order within a priority', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit });
    q.add('listed-1', { priority: -100 });
    q.add('listed-2', { priority: -100 });
    q.add('edited-1');
    q.add('urgent', { priority: 10 });
    q.add('edited-2');
    const out: [string, number][] = [];
    for (let i = 0; i < 5; i++) {
      const got = (await q.getWithPriority())!;
      out.push([got.item, got.priority]);
      q.done(got.item);
    }
    expect(out).toEqual([
      ['urgent', 10],
      ['edited-1', 0],
      ['edited-2', 0],
      ['listed-1', -100],
      ['listed-2', -100],
    ]);
    q.shutDown();
  });

  it('deduplicates to the higher priority: a raised item goes to the end of its new priority, a lower add changes nothing', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit });
    for (let i = 0; i < 3; i++) q.add(`listed-${i}`, { priority: -100 });
    q.add('changed');
    q.add('listed-2'); // a real change of an object the initial list queued
    q.add('changed', { priority: -100 });
    expect(q.length).toBe(4);
    const out: string[] = [];
    while (q.length > 0) {
      const got = (await q.getWithPriority())!;
      out.push(`${got.item}@${got.priority}`);
    }
    expect(out).toEqual(['changed@0', 'listed-2@0', 'listed-0@-100', 'listed-1@-100']);
    q.shutDown();
  });

  it('with priorities off, every add is first-in, first-out at priority 0', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit, priorities: false });
    q.add('listed', { priority: -100 });
    q.add('edited');
    q.add('urgent', { priority: 10 });
    const out: string[] = [];
    while (q.length > 0) {
      const got = (await q.getWithPriority())!;
      out.push(`${got.item}@${got.priority}`);
    }
    expect(out).toEqual(['listed@0', 'edited@0', 'urgent@0']);
    q.shutDown();
  });

  it('an item added while a worker has it comes back once, at the highest priority it was added with', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit });
    q.add('a', { priority: -100 });
    const a = (await q.getWithPriority())!;
    expect(a).toEqual({ item: 'a', priority: -100 });
    q.add('a', { priority: -100 });
    q.add('a');
    q.add('b', { priority: -100 });
    q.done('a');
    q.add('a', { priority: -100 });
    // 'b' was ready while 'a' was held; then 'a' is handed back once, at priority 0.
    expect(await q.getWithPriority()).toEqual({ item: 'b', priority: -100 });
    expect(await q.getWithPriority()).toEqual({ item: 'a', priority: 0 });
    q.done('a');
    q.done('b');
    const again = await Promise.race([q.get(), new Promise((r) => setTimeout(() => r('nothing'), 30))]);
    expect(again).toBe('nothing');
    q.shutDown();
  });

  it('a delayed item keeps the higher priority, and an add without delay makes it ready at once', async () => {
    const q = new WorkQueue<string>({ rateLimiter: noLimit });
    q.addAfter('a', 20, { priority: -100 });
    q.addAfter('a', 10_000, { priority: 5 });
    expect(q.length).toBe(0);
    q.add('first');
    expect(await q.getWithPriority()).toEqual({ item: 'first', priority: 0 });
    const t0 = performance.now();
    expect(await q.getWithPriority()).toEqual({ item: 'a', priority: 5 });
    expect(performance.now() - t0).toBeLessThan(5_000);

    q.addAfter('b', 10_000, { priority: -100 });
    q.add('b');
    expect(q.length).toBe(1);
    expect(await q.getWithPriority()).toEqual({ item: 'b', priority: 0 });
    // Its wait merged into that add: nothing comes later.
    q.done('b');
    q.done('a');
    q.done('first');
    q.shutDown();
  });
});

describe('rate limiters', () => {
  it('per-item backoff doubles from 5 ms and caps at 1000 s', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    const delays = Array.from({ length: 5 }, () => l.when('a'));
    expect(delays).toEqual([5, 10, 20, 40, 80]);
    for (let i = 0; i < 40; i++) l.when('a');
    expect(l.when('a')).toBe(1_000_000);
    expect(l.when('b')).toBe(5);
  });

  it('token bucket lets a burst through, then spaces items at 1/qps', () => {
    let now = 0;
    const l = new BucketRateLimiter<string>(10, 100, () => now);
    for (let i = 0; i < 100; i++) expect(l.when(`k${i}`)).toBe(0);
    expect(l.when('k100')).toBeCloseTo(100);
    expect(l.when('k101')).toBeCloseTo(200);
    now += 1000; // ten tokens refill in a second; two were owed, so eight are left
    for (let i = 0; i < 8; i++) expect(l.when(`r${i}`)).toBe(0);
    expect(l.when('r8')).toBeCloseTo(100);
  });

  it('the default limiter takes the larger of per-item backoff and the bucket', () => {
    const l = defaultControllerRateLimiter<string>();
    expect(l.when('a')).toBe(5);
    expect(l.when('a')).toBe(10);
    const max = new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter(1, 10), { when: () => 50, forget() {}, numRequeues: () => 0 });
    expect(max.when('x')).toBe(50);
  });
});
