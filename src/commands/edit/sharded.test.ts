// Sharded projects: `opgen init --sharded [--replicas N]` and `opgen edit --sharded[=false]`. The rendered
// config/ comes from the real `kubectl kustomize`; the shard Lease RBAC is checked with the real API
// server's authorizer (envtest, RBAC mode) for the service account; src/main.ts is type-checked by the
// real tsc against @opgen/runtime's ManagerOptions. A project that does not ask for sharding is the
// same, byte for byte, before and after a round trip.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { opgen as opgenIn, type CliResult } from '../../testdata/cli.js';
import { renderKustomize, type KubeObject } from '../../kustomize/render.js';
import { parseProject } from '../../project/index.js';
import { snapshot, tempDir } from '../../testdata/files.js';
import { tscErrors } from '../../testdata/tsc.js';

let root: string;
let cleanup: () => void;
let env: TestEnv;
beforeAll(async () => {
  ({ dir: root, cleanup } = tempDir('opgen-sharded-'));
  env = await startTestEnv();
}, 240_000);
afterAll(async () => {
  await env?.stop();
  cleanup?.();
});

/** A fresh project folder named `shop` under its own parent (the folder name is the project name). */
function projectDir(label: string): string {
  const dir = join(root, label, 'shop');
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function ok(dir: string, ...argv: string[]): Promise<CliResult> {
  const r = await opgenIn(dir, ...argv);
  expect(r.code, `opgen ${argv.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

/** A refusal a user sees: exit 1, one line naming the flag or file and the fix, nothing written. */
async function expectRefused(dir: string, argv: string[], line: string): Promise<void> {
  const before = snapshot(dir);
  const r = await opgenIn(dir, ...argv);
  expect(r.code).toBe(1);
  expect(r.stderr.trimEnd()).toBe(line);
  expect(r.stdout).toBe('');
  expect(snapshot(dir)).toEqual(before);
}

const INIT = ['init', '--domain', 'example.com', '--skip-install'];
const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');
const deployment = (objects: KubeObject[]) => objects.find((o) => o.kind === 'Deployment') as { metadata: { namespace: string }; spec: { replicas: number } };
const kubectl = (...args: string[]) => spawnSync('kubectl', ['--kubeconfig', env.kubeconfigPath, ...args], { encoding: 'utf8' });

describe('opgen init --sharded', () => {
  it('writes replicas N, the sharding option (type-checked against the runtime) and PROJECT sharded; the service account may use the shard Leases in its namespace only', async () => {
    const dir = projectDir('init');
    await ok(dir, ...INIT, '--sharded', '--replicas', '4');
    expect(parseProject(read(dir, 'PROJECT')).sharded).toBe(true);
    expect(read(dir, 'PROJECT')).toMatch(/^sharded: true$/m);

    const objects = await renderKustomize({ cwd: dir, dir: 'config/default' });
    expect(deployment(objects).spec.replicas).toBe(4);
    expect(deployment(objects).metadata.namespace).toBe('shop-system');

    // createManager({ ..., sharding: true }): tsc checks the option against the runtime's ManagerOptions,
    // and fails when it is given something the runtime does not take.
    expect(read(dir, 'src/main.ts')).toMatch(/createManager\(\{[^]*\n {4}sharding: true,\n {2}\}\);/);
    const check = { extends: './tsconfig.json', include: ['src/**/*.ts'] };
    expect(tscErrors(join(dir, 'tsconfig.check.json'), check)).toBe('');
    writeFileSync(join(dir, 'src/main.ts'), read(dir, 'src/main.ts').replace('sharding: true,', "sharding: 'yes',"));
    expect(tscErrors(join(dir, 'tsconfig.check.json'), check)).toMatch(/src\/main\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'boolean \| ShardingOptions \| undefined'\./);

    // The rendered RBAC, applied to a real API server: what the runtime's sharding does with Leases
    // (list the ring, create and renew its own, delete its own and expired ones) is allowed in the
    // manager's namespace and nowhere else.
    const rbac = objects.filter((o) => ['Namespace', 'ServiceAccount', 'Role', 'RoleBinding'].includes(o.kind ?? ''));
    execFileSync('kubectl', ['--kubeconfig', env.kubeconfigPath, 'apply', '--server-side', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rbac }), encoding: 'utf8' });
    const as = 'system:serviceaccount:shop-system:shop-controller-manager';
    for (const verb of ['get', 'list', 'create', 'update', 'delete']) {
      const here = kubectl('auth', 'can-i', verb, 'leases.coordination.k8s.io', '-n', 'shop-system', '--as', as);
      expect(here.stdout.trim(), `${verb}: ${here.stderr}`).toBe('yes');
      expect(kubectl('auth', 'can-i', verb, 'leases.coordination.k8s.io', '-n', 'default', '--as', as).stdout.trim()).toBe('no');
    }
  }, 120_000);

  it('without --sharded renders what it rendered before; --sharded changes exactly PROJECT, manager.yaml and main.ts', async () => {
    const plain = projectDir('plain');
    const again = projectDir('plain-again');
    const sharded = projectDir('sharded');
    await ok(plain, ...INIT);
    await ok(again, ...INIT);
    await ok(sharded, ...INIT, '--sharded');
    // Deterministic, and nothing about sharding in a project that did not ask for it.
    expect(snapshot(again)).toEqual(snapshot(plain));
    expect(read(plain, 'src/main.ts')).not.toMatch(/sharding/);
    expect(read(plain, 'config/manager/manager.yaml')).toMatch(/^ {2}replicas: 1\n {2}template:$/m);
    expect(read(plain, 'PROJECT')).not.toMatch(/sharded/);

    const a = snapshot(plain);
    const b = snapshot(sharded);
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    expect(Object.keys(a).filter((f) => a[f] !== b[f]).sort()).toEqual(['PROJECT', 'config/manager/manager.yaml', 'src/main.ts']);
    expect(deployment(await renderKustomize({ cwd: sharded, dir: 'config/default' })).spec.replicas).toBe(3);
  }, 120_000);

  it('refuses --replicas without --sharded, and fewer than 2 replicas, in one line, writing nothing', async () => {
    const dir = projectDir('refused');
    await expectRefused(dir, [...INIT, '--replicas', '3'], '--replicas: error: applies only to a sharded project (add --sharded, or drop --replicas)');
    await expectRefused(dir, [...INIT, '--sharded', '--replicas', '1'], "--replicas: error: must be a whole number of at least 2, got '1' (sharding spreads the objects over several replicas, e.g. --replicas 3)");
    await expectRefused(dir, [...INIT, '--sharded', '--replicas', 'three'], "--replicas: error: must be a whole number of at least 2, got 'three' (sharding spreads the objects over several replicas, e.g. --replicas 3)");
  });
});

describe('opgen edit --sharded', () => {
  it('switches an existing project on and back off: the same bytes as init --sharded, then as the plain project', async () => {
    const reference = projectDir('edit-reference');
    await ok(reference, ...INIT, '--sharded', '--replicas', '5');
    const dir = projectDir('edit');
    await ok(dir, ...INIT);
    const plain = snapshot(dir);

    const on = await ok(dir, 'edit', '--sharded', '--replicas', '5');
    expect(on.stdout).toContain('Sharded: 5 active replicas.');
    expect(snapshot(dir)).toEqual(snapshot(reference));
    // Again: nothing to change.
    await ok(dir, 'edit', '--sharded', '--replicas', '5');
    expect(snapshot(dir)).toEqual(snapshot(reference));
    // Another count only moves the replicas.
    await ok(dir, 'edit', '--sharded', '--replicas', '2');
    expect(deployment(await renderKustomize({ cwd: dir, dir: 'config/default' })).spec.replicas).toBe(2);

    await ok(dir, 'edit', '--sharded=false');
    expect(snapshot(dir)).toEqual(plain);
  });

  it('adds the shard Lease verbs an older leader-election Role lacks', async () => {
    const dir = projectDir('edit-rbac');
    await ok(dir, ...INIT);
    const role = 'config/rbac/leader_election_role.yaml';
    writeFileSync(join(dir, role), read(dir, role).replace('  - list\n', '').replace('  - delete\n', ''));
    const r = await ok(dir, 'edit', '--sharded');
    expect(r.stdout).toContain(`${role}: added list, delete on leases (the shard Leases).`);
    const objects = await renderKustomize({ cwd: dir, dir: 'config/default' });
    const lease = objects.find((o) => o.kind === 'Role' && o.metadata?.name === 'shop-leader-election-role') as { rules: Array<{ resources: string[]; verbs: string[] }> };
    expect(lease.rules.find((x) => x.resources.includes('leases'))!.verbs.sort()).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
  });

  it('refuses a main.ts without a createManager({ ... }) call, and --replicas with --sharded=false, writing nothing', async () => {
    const dir = projectDir('edit-refused');
    await ok(dir, ...INIT);
    await expectRefused(dir, ['edit', '--sharded=false', '--replicas', '3'], '--replicas: error: applies only to a sharded project (add --sharded, or drop --replicas)');
    writeFileSync(join(dir, 'src/main.ts'), read(dir, 'src/main.ts').replace('createManager({', 'createManager(options({'));
    await expectRefused(dir, ['edit', '--sharded'], 'src/main.ts: error: no createManager({ ... }) call with an object literal (pass `sharding: true` to createManager by hand)');
  });
});
