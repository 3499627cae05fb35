// `create webhook --cert-provider self`: `kubectl kustomize config/default` renders no cert-manager kind
// or annotation, the manager's names and RBAC line up with the objects it patches, the project type-checks
// with tsc; a bad value or a second provider is one line with nothing written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opgen as opgenIn, opgenOk, type CliResult } from '../../testdata/cli.js';
import { memcachedProject as memcachedProjectIn } from '../../testdata/memcached-project.js';
import { snapshot, tempDir } from '../../testdata/files.js';
import { tscErrors } from '../../testdata/tsc.js';

interface Rule { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }
interface K8sObject {
  kind: string;
  apiVersion: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace: string }[];
  spec?: Record<string, unknown>;
}

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('opgen-cert-provider-', 'demo')));
afterEach(() => cleanup());

const opgen = (...argv: string[]): Promise<CliResult> => opgenIn(dir, ...argv);
const ok = (...argv: string[]): Promise<CliResult> => opgenOk(dir, ...argv);
const read = (path: string): string => readFileSync(join(dir, path), 'utf8');

const memcachedProject = (): Promise<void> => memcachedProjectIn(dir);

async function kustomize(path: string): Promise<K8sObject[]> {
  const r = await execa('kubectl', ['kustomize', path], { cwd: dir, reject: false });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  return parseAllDocuments(String(r.stdout)).map((d) => d.toJS() as K8sObject);
}

/** The rules bound to the manager's service account (demo-controller-manager in demo-system). */
function managerRules(objects: K8sObject[]): { role: K8sObject; rule: Rule }[] {
  const bound = objects.filter((o) => (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') && o.subjects?.some((s) => s.name === 'demo-controller-manager' && s.namespace === 'demo-system'));
  return bound.flatMap((b) => {
    const role = objects.find((o) => o.kind === b.roleRef?.kind && o.metadata.name === b.roleRef?.name);
    expect(role, `${b.kind} ${b.metadata.name} → ${b.roleRef?.kind} ${b.roleRef?.name}`).toBeDefined();
    return (role?.rules ?? []).map((rule) => ({ role: role!, rule }));
  });
}

describe('opgen create webhook --cert-provider self', () => {
  it('renders without cert-manager, names and RBAC matching the objects the manager patches, and type-checks', async () => {
    await memcachedProject();
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation', '--conversion', '--spoke', 'v1beta1', '--cert-provider', 'self');
    await ok('generate');
    expect(read('PROJECT')).toMatch(/^certProvider: self$/m);
    expect(read('src/main.ts')).toContain('selfCertificate: selfCertificateFromEnv()');
    expect(read('src/main.ts')).not.toContain("certDir: flags['webhook-cert-path']");

    const objects = await kustomize('config/default');
    expect(objects.filter((o) => o.apiVersion.startsWith('cert-manager.io'))).toEqual([]);
    expect(JSON.stringify(objects)).not.toContain('cert-manager.io/inject-ca-from');

    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const pod = deployment.spec!.template as { spec: { volumes?: { name: string }[]; containers: { name: string; env?: { name: string; value?: string }[]; ports: { containerPort: number }[]; args: string[] }[] } };
    const manager = pod.spec.containers.find((c) => c.name === 'manager')!;
    const env = Object.fromEntries((manager.env ?? []).map((e) => [e.name, e.value]));
    const vwc = objects.find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
    const mwc = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!;
    const crd = objects.find((o) => o.kind === 'CustomResourceDefinition')!;
    const service = objects.find((o) => o.kind === 'Service' && o.metadata.name.endsWith('webhook-service'))!;
    expect(env).toMatchObject({
      WEBHOOK_CERT_SECRET: 'webhook-server-cert',
      WEBHOOK_SERVICE_NAME: service.metadata.name,
      VALIDATING_WEBHOOK_CONFIGURATION: vwc.metadata.name,
      MUTATING_WEBHOOK_CONFIGURATION: mwc.metadata.name,
    });
    expect(env.WEBHOOK_SERVICE_NAME).toBe('demo-webhook-service');
    expect(service.metadata.namespace).toBe('demo-system');
    expect(manager.ports.map((p) => p.containerPort)).toContain(9443);
    expect(manager.args.join(' ')).not.toContain('--webhook-cert-path');
    expect(pod.spec.volumes ?? []).toEqual([]);
    // The webhooks still call the Service; the CA bundle is the manager's to fill.
    for (const w of (vwc as unknown as { webhooks: { clientConfig: { service: { name: string } } }[] }).webhooks) {
      expect(w.clientConfig.service.name).toBe('demo-webhook-service');
    }

    // Rights on exactly what it patches: its Secret in its namespace, and each object it injects into by name.
    const rules = managerRules(objects);
    const on = (resource: string) => rules.filter((r) => r.rule.resources.includes(resource));
    const secretRules = on('secrets');
    expect(secretRules.every((r) => r.role.kind === 'Role' && r.role.metadata.namespace === 'demo-system')).toBe(true);
    expect(secretRules.find((r) => r.rule.resourceNames)?.rule).toMatchObject({ resourceNames: ['webhook-server-cert'], verbs: ['get', 'list', 'watch', 'update', 'patch'] });
    expect(secretRules.filter((r) => !r.rule.resourceNames).map((r) => r.rule.verbs)).toEqual([['create']]);
    for (const [resource, name] of [['validatingwebhookconfigurations', vwc.metadata.name], ['mutatingwebhookconfigurations', mwc.metadata.name], ['customresourcedefinitions', crd.metadata.name]] as const) {
      const granted = on(resource).filter((r) => r.rule.verbs.includes('update'));
      expect(granted.map((r) => r.rule.resourceNames), resource).toEqual([[name]]);
    }
    // generate's manager role did not gain any of this.
    expect(on('secrets').every((r) => r.role.metadata.name.startsWith('demo-webhook-cert'))).toBe(true);

    const output = tscErrors(join(dir, 'tsconfig.check.json'), { extends: join(dir, 'tsconfig.json'), include: [join(dir, 'src', '**', '*.ts')], entries: ['envtest', 'kubernetes'], vitest: true });
    expect(output).toBe('');
  }, 240_000);

  it('a later webhook keeps the provider recorded in PROJECT; a different one is refused with nothing written', async () => {
    await memcachedProject();
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--cert-provider', 'self');
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--programmatic-validation');
    await ok('generate');
    const objects = await kustomize('config/default');
    expect(objects.filter((o) => o.apiVersion.startsWith('cert-manager.io'))).toEqual([]);
    expect(managerRules(objects).filter((r) => r.rule.resources.includes('validatingwebhookconfigurations')).map((r) => r.rule.resourceNames)).toEqual([['demo-validating-webhook-configuration']]);

    const before = snapshot(dir);
    const r = await opgen('create', 'webhook', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached', '--defaulting', '--cert-provider', 'cert-manager');
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--cert-provider');
    expect(r.stderr).toContain('opgen edit --cert-provider cert-manager');
    expect(snapshot(dir)).toEqual(before);
  }, 240_000);

  it('a bad value is one line naming the flag and the allowed values, nothing written', async () => {
    await memcachedProject();
    const before = snapshot(dir);
    const r = await opgen('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--cert-provider', 'vault');
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--cert-provider.*vault.*cert-manager, self/);
    expect(snapshot(dir)).toEqual(before);
  }, 120_000);
});
