import { describe, expect, it } from 'vitest';
import { createLogger } from './index.js';

describe('createLogger', () => {
  it('writes one JSON object per line with inherited fields', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) }).child({ controller: 'memcached' }).child({ namespace: 'ns', name: 'a', reconcileID: 'r1' });
    log.info('reconciling', { step: 1 });
    log.error('failed', new Error('boom'), { retry: true });
    expect(lines.every((l) => l.endsWith('\n'))).toBe(true);
    const [info, error] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(info).toMatchObject({ level: 'info', msg: 'reconciling', controller: 'memcached', namespace: 'ns', name: 'a', reconcileID: 'r1', step: 1 });
    expect(new Date(info!.ts as string).toISOString()).toBe(info!.ts);
    expect(error).toMatchObject({ level: 'error', msg: 'failed', error: 'boom', retry: true, controller: 'memcached' });
  });

  it('writes the error\'s stack and its cause chain', () => {
    const lines: string[] = [];
    const root = new Error('connection refused');
    const mid = new Error('GET /apis/x failed', { cause: root });
    const top = new Error('reconcile failed', { cause: mid });
    createLogger({ write: (l) => lines.push(l) }).error('Reconciler error', top);
    const line = JSON.parse(lines[0]!) as { error: string; stacktrace: string; causes: { error: string; stacktrace: string }[] };
    expect(line.error).toBe('reconcile failed');
    expect(line.stacktrace).toMatch(/^Error: reconcile failed\n\s+at .*log\.test\.ts/);
    expect(line.causes.map((c) => c.error)).toEqual(['GET /apis/x failed', 'connection refused']);
    expect(line.causes[1]!.stacktrace).toMatch(/^Error: connection refused\n\s+at /);
    // A cause that is no Error, and a chain that loops, end the list.
    const loop = new Error('a');
    loop.cause = new Error('b', { cause: loop });
    createLogger({ write: (l) => lines.push(l) }).error('x', new Error('top', { cause: 'a string' }));
    createLogger({ write: (l) => lines.push(l) }).error('y', loop);
    expect((JSON.parse(lines[1]!) as { causes: unknown }).causes).toEqual([{ error: 'a string' }]);
    expect((JSON.parse(lines[2]!) as { causes: { error: string }[] }).causes.map((c) => c.error)).toEqual(['b']);
  });

  it('drops lines below its level and survives fields that cannot be serialised', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', write: (l) => lines.push(l) });
    log.debug('hidden');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    log.info('odd', { circular });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'odd', logError: 'fields could not be serialised' });
    createLogger({ level: 'silent', write: (l) => lines.push(l) }).error('nothing');
    expect(lines).toHaveLength(1);
  });
});
