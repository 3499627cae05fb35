// Deadlines and cancellation against a server that accepts connections and never answers (a hung
// API server or a half-open connection): without them a worker waits forever.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap } from '../api/builtins.js';
import { createClient } from '../client/client.js';
import type { KubeConfigLike } from '../kubeconfig/index.js';
import { rejection } from '../manager/testdata/wait.js';
import { Transport } from './transport.js';

let server: Server;
let kubeConfig: KubeConfigLike;
const sockets = new Set<Socket>();
let requests = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', () => requests++); // one per request: none is ever answered, so none shares a socket
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  kubeConfig = {
    getCurrentCluster: () => ({ name: 'silent', server: `http://127.0.0.1:${port}`, skipTLSVerify: false }),
    applyToHTTPSOptions: async () => {},
  };
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('a server that never answers', () => {
  it('a call is aborted by its signal (ctx.signal in a reconcile), for reads and writes alike', async () => {
    const client = createClient(kubeConfig, { requestTimeoutMs: 0 });
    const key = { namespace: 'default', name: 'a' };
    const calls = [
      (signal: AbortSignal) => client.get(ConfigMap, key, { signal }),
      (signal: AbortSignal) => client.list(ConfigMap, { namespace: 'default', signal }),
      (signal: AbortSignal) => client.create(ConfigMap, { metadata: key }, { signal }),
      (signal: AbortSignal) => client.update(ConfigMap, { metadata: key }, { signal }),
      (signal: AbortSignal) => client.patch(ConfigMap, key, { type: 'merge', body: {} }, { signal }),
      (signal: AbortSignal) => client.apply(ConfigMap, { metadata: key }, { fieldManager: 'test', signal }),
      (signal: AbortSignal) => client.delete(ConfigMap, key, { signal }),
      (signal: AbortSignal) => client.status().update(ConfigMap, { metadata: key }, { signal }),
      (signal: AbortSignal) => client.status().patch(ConfigMap, key, { type: 'merge', body: {} }, { signal }),
      (signal: AbortSignal) => client.status().apply(ConfigMap, { metadata: key }, { fieldManager: 'test', signal }),
    ];
    const before = requests;
    const ctl = new AbortController();
    const pending = calls.map((call) => rejection(call(ctl.signal)));
    // Abort once every request has reached the server and is waiting for an answer.
    const deadline = performance.now() + 10_000;
    while (requests - before < calls.length && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(requests - before).toBeGreaterThanOrEqual(calls.length);
    const abortedAt = performance.now();
    ctl.abort();
    const results = await Promise.all(pending);
    const settled = performance.now();
    expect(settled - abortedAt).toBeLessThan(1000);
    for (const { err } of results) expect(err.name).toBe('AbortError');
    expect(results[0]!.err.message).toMatch(/^get configmaps\.core default\/a: aborted/);
    // An already-aborted signal fails at once, without sending anything.
    const sent = requests;
    await expect(client.get(ConfigMap, key, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, 50));
    expect(requests).toBe(sent);
  });

  it('a call without a signal is cut by the client\'s default timeout, or its own timeoutMs', async () => {
    const client = createClient(kubeConfig, { requestTimeoutMs: 300 });
    const viaDefault = await rejection(client.get(ConfigMap, { namespace: 'default', name: 'a' }));
    expect(viaDefault.err.name).toBe('TimeoutError');
    expect(viaDefault.err.message).toBe('get configmaps.core default/a: no answer within 300 ms (the request timeout)');
    expect(viaDefault.ms).toBeGreaterThanOrEqual(250);
    expect(viaDefault.ms).toBeLessThan(2000);

    const perCall = await rejection(client.list(ConfigMap, { timeoutMs: 100 }));
    expect(perCall.err.name).toBe('TimeoutError');
    expect(perCall.err.message).toMatch(/no answer within 100 ms/);
    expect(perCall.ms).toBeLessThan(250);

    // The default applies without any option (60 s): here only that the transport has one.
    const plain = new Transport(kubeConfig);
    const ctl = new AbortController();
    const p = rejection(plain.request('GET', '/api', { signal: ctl.signal }));
    setTimeout(() => ctl.abort(), 100);
    expect((await p).err.name).toBe('AbortError');
    plain.destroy();
  });

  it('the transport\'s stop signal (the manager\'s hard stop) aborts requests in flight and refuses new ones', async () => {
    const stop = new AbortController();
    const transport = new Transport(kubeConfig, { stop: stop.signal, requestTimeoutMs: 0 });
    const inFlight = rejection(transport.request('PATCH', '/api/v1/namespaces/default/configmaps/a', { body: {}, context: 'patch a' }));
    setTimeout(() => stop.abort(new Error('leader election lost')), 200);
    const { ms, err } = await inFlight;
    expect(err.name).toBe('AbortError');
    expect(err.message).toBe('patch a: aborted (leader election lost)');
    expect(ms).toBeLessThan(2000);
    const sent = requests;
    await expect(transport.request('GET', '/api', { context: 'get api' })).rejects.toThrow('get api: aborted (leader election lost)');
    await new Promise((r) => setTimeout(r, 50));
    expect(requests).toBe(sent);
    transport.destroy();
  });

  it('many requests in flight on one stop signal are not reported as a listener leak', async () => {
    // Each request in flight listens to the manager's stop signal until it ends; more than ten at once
    // (a busy controller) must not print MaxListenersExceededWarning, which users take for a leak.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const stop = new AbortController();
    const transport = new Transport(kubeConfig, { stop: stop.signal, requestTimeoutMs: 0 });
    const calls = Array.from({ length: 30 }, (_, i) => rejection(transport.request('GET', `/api/v1/namespaces/default/configmaps/c${i}`, { context: `get c${i}` })));
    const sent = requests;
    while (requests - sent < 30) await new Promise((r) => setTimeout(r, 20));
    stop.abort(new Error('stopping'));
    const results = await Promise.all(calls);
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(results.every((r) => r.err.name === 'AbortError')).toBe(true);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    transport.destroy();
  });
});
