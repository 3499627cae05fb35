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
