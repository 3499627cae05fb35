// What `opgen init` grants and how long it lets the manager drain: the leader-election Role holds Leases
// only (kubebuilder's current role; @opgen/runtime never locks on a ConfigMap), and the kubelet's grace
// period outlasts the runtime's own graceful shutdown, so a rollout never SIGKILLs a draining manager.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parse } from 'yaml';
import { opgenOk } from '../../testdata/cli.js';
import { tempDir } from '../../testdata/files.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('opgen-init-', 'memcached-operator')));
afterEach(() => cleanup());

interface Rule { apiGroups: string[]; resources: string[]; verbs: string[] }

it('the leader-election Role grants coordination.k8s.io leases and events, nothing else', async () => {
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
  const role = parse(readFileSync(join(dir, 'config/rbac/leader_election_role.yaml'), 'utf8')) as { kind: string; rules: Rule[] };
  expect(role.kind).toBe('Role');
  expect(role.rules).toEqual([
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ]);
});

it("terminationGracePeriodSeconds covers the runtime's graceful drain plus releasing the lease and flushing events", async () => {
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
  // The runtime's default drain, read from its source so that a change there fails here.
  const manager = readFileSync(new URL('../../../runtime/src/manager/manager.ts', import.meta.url), 'utf8');
  const drain = /gracefulShutdownTimeoutMs \?\? ([\d_]+)/.exec(manager);
  expect(drain, 'runtime/src/manager/manager.ts no longer reads `gracefulShutdownTimeoutMs ?? <ms>`: update this test').not.toBeNull();
  const drainSeconds = Number(drain![1]!.replaceAll('_', '')) / 1000;
  // After the drain: the lease release and up to 5 s of pending events (settleWithin(pendingEvents, 5_000)).
  const flush = /settleWithin\(\[\.\.\.this\.pendingEvents\], ([\d_]+)\)/.exec(manager);
  const flushSeconds = flush ? Number(flush[1]!.replaceAll('_', '')) / 1000 : 5;
  const deployment = parse(readFileSync(join(dir, 'config/manager/manager.yaml'), 'utf8').split(/^---$/m).find((d) => /kind: Deployment/.test(d))!) as { spec: { template: { spec: { terminationGracePeriodSeconds: number } } } };
  const grace = deployment.spec.template.spec.terminationGracePeriodSeconds;
  expect(drainSeconds).toBe(30);
  expect(grace).toBeGreaterThan(drainSeconds + flushSeconds);
  expect(grace).toBe(40);
});
