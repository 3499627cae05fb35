import { afterEach, describe, expect, it } from 'vitest';
import { type Check, startProbeServer } from './index.js';

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});
async function serve(healthz: Map<string, Check>, readyz: Map<string, Check>): Promise<(path: string) => Promise<[number, string]>> {
  const stop = new AbortController();
  stops.push(stop);
  const { port } = await startProbeServer('127.0.0.1:0', { healthz, readyz }, stop.signal);
  return async (path) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    return [res.status, await res.text()];
  };
}

describe('probe server', () => {
  it('answers 200 "ok" when every check passes', async () => {
    const get = await serve(new Map([['ping', () => {}]]), new Map([['cache-sync', async () => {}]]));
    expect(await get('/healthz')).toEqual([200, 'ok']);
    expect(await get('/readyz')).toEqual([200, 'ok']);
    expect(await get('/readyz/cache-sync')).toEqual([200, 'ok']);
    expect(await get('/readyz?verbose')).toEqual([200, '[+]cache-sync ok\nhealthz check passed\n']);
  });

  it('answers 500 naming the failing checks, without their reasons, and gives the reason per check', async () => {
    const readyz = new Map<string, Check>([
      ['informers', async () => { throw new Error('caches not synced: Memcached'); }],
      ['webhook', () => {}],
      ['leader', () => { throw new Error('not leading'); }],
    ]);
    const get = await serve(new Map(), readyz);
    expect(await get('/readyz')).toEqual([
      500,
      '[-]informers failed: reason withheld\n[+]webhook ok\n[-]leader failed: reason withheld\nhealthz check failed\n',
    ]);
    expect(await get('/readyz/informers')).toEqual([500, 'internal server error: caches not synced: Memcached\n']);
    expect(await get('/readyz/webhook')).toEqual([200, 'ok']);
    expect(await get('/readyz?exclude=informers&exclude=leader')).toEqual([200, 'ok']);
    const [status, body] = await get('/readyz?exclude=leader&exclude=nope');
    expect(status).toBe(500);
    expect(body).toContain('[+]leader excluded: ok\n');
    expect(body).toContain('warn: some health checks cannot be excluded: no matches for "nope"\n');
    // healthz is its own set: still fine.
    expect(await get('/healthz')).toEqual([200, 'ok']);
  });

  it('reads the check maps on every request, so a check can turn ready later', async () => {
    let synced = false;
    const readyz = new Map<string, Check>([['cache-sync', () => { if (!synced) throw new Error('not yet'); }]]);
    const get = await serve(new Map(), readyz);
    expect((await get('/readyz'))[0]).toBe(500);
    synced = true;
    expect(await get('/readyz')).toEqual([200, 'ok']);
    readyz.set('late', () => { throw new Error('late check'); });
    expect(await get('/readyz')).toEqual([500, '[+]cache-sync ok\n[-]late failed: reason withheld\nhealthz check failed\n']);
  });

  it('answers "ok" with no checks (an implicit ping) and 404 for unknown paths', async () => {
    const get = await serve(new Map(), new Map());
    expect(await get('/healthz')).toEqual([200, 'ok']);
    expect(await get('/readyz/ping')).toEqual([200, 'ok']);
    expect((await get('/readyz/missing'))[0]).toBe(404);
    expect((await get('/metrics'))[0]).toBe(404);
    expect((await get('/healthz/ping/extra'))[0]).toBe(404);
  });

  it('does not listen for "0", and stops when the signal aborts', async () => {
    const stop = new AbortController();
    expect(await startProbeServer('0', { healthz: new Map(), readyz: new Map() }, stop.signal)).toEqual({ port: 0 });
    const { port } = await startProbeServer('127.0.0.1:0', { healthz: new Map(), readyz: new Map() }, stop.signal);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    stop.abort();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
