// The Helm chart of a --cert-provider self project: helm lint, then helm template's objects checked
// against each other (every name the manager's self-certificate variables and its self-certificate roles
// refer to is an object the release renders, under the release's names; no cert-manager object or toggle),
// then installed on a real API server (envtest: all of them through a server-side dry run) where a manager running as the release's service account
// (a token of its own) makes the Secret the chart names and injects its CA into the release's webhook
// configurations and conversion CRD.
import { join } from 'node:path';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createManager, groupVersion, selfCertificateFromEnv, silentLogger, type KubeObject } from '@opgen/runtime';
import { eventually, startTestEnv } from '@opgen/runtime/envtest';
import { helm, opgen, opgenOk, tempDir } from './helpers.js';
import { selfCertMemcachedProject } from '../../src/testdata/memcached-project.js';
import { serviceAccountKubeConfig } from '../../src/testdata/service-account.js';

type Obj = KubeObject & Record<string, any>;
const gv = (group: string, kind: string, namespaced = true) => groupVersion(group, 'v1').kind<Obj>(kind, { namespaced });
const kinds: Record<string, ReturnType<typeof gv>> = {
  Namespace: gv('', 'Namespace', false),
  ServiceAccount: gv('', 'ServiceAccount'),
  Secret: gv('', 'Secret'),
  Role: gv('rbac.authorization.k8s.io', 'Role'),
  RoleBinding: gv('rbac.authorization.k8s.io', 'RoleBinding'),
  ClusterRole: gv('rbac.authorization.k8s.io', 'ClusterRole', false),
  ClusterRoleBinding: gv('rbac.authorization.k8s.io', 'ClusterRoleBinding', false),
  ValidatingWebhookConfiguration: gv('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', false),
  MutatingWebhookConfiguration: gv('admissionregistration.k8s.io', 'MutatingWebhookConfiguration', false),
  CustomResourceDefinition: gv('apiextensions.k8s.io', 'CustomResourceDefinition', false),
};

const RELEASE = 'rel';
const NS = 'team-a';

describe('generate helm on a --cert-provider self project', () => {
  const project = tempDir('opgen-helm-self-', 'demo');
  const chart = (): string => join(project.dir, 'dist/chart');
  const render = async (...set: string[]): Promise<Obj[]> => {
    const r = await helm(project.dir, 'template', RELEASE, chart(), '--namespace', NS, ...set.flatMap((s) => ['--set', s]));
    expect(r.exitCode, r.stderr).toBe(0);
    return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj).filter((o) => o);
  };
  const envOf = (objects: Obj[]): Record<string, string> => {
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const container = (deployment.spec.template.spec.containers as Obj[]).find((c) => c.name === 'manager')!;
    return Object.fromEntries(((container.env ?? []) as { name: string; value?: string }[]).map((e) => [e.name, e.value ?? '']));
  };
  const named = (objects: Obj[], kind: string): string[] => objects.filter((o) => o.kind === kind).map((o) => o.metadata!.name!);

  beforeAll(async () => {
    const dir = project.dir;
    await selfCertMemcachedProject(dir);
    await opgenOk(dir, 'generate', 'helm');
  }, 240_000);
  afterAll(() => project.cleanup());

  it('passes helm lint --strict, with rbac.namespaced and with the webhooks off', async () => {
    for (const set of [[], ['rbac.namespaced=true'], ['webhook.enabled=false']]) {
      const r = await helm(project.dir, 'lint', '--strict', chart(), ...set.flatMap((s) => ['--set', s]));
      expect(r.exitCode, `${set.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
    }
  });

  it('every name the manager and its self-certificate roles refer to is an object of the release; no cert-manager', async () => {
    for (const set of [[], ['rbac.namespaced=true']]) {
      const objects = await render(...set);
      const env = envOf(objects);
      const prefix = `${RELEASE}-demo-`;
      expect(env.WEBHOOK_CERT_SECRET).toBe(`${prefix}webhook-server-cert`);
      expect(named(objects, 'Service')).toContain(env.WEBHOOK_SERVICE_NAME);
      expect(env.WEBHOOK_SERVICE_NAME).toBe(`${prefix}webhook-service`);
      expect(named(objects, 'ValidatingWebhookConfiguration')).toEqual([env.VALIDATING_WEBHOOK_CONFIGURATION]);
      expect(named(objects, 'MutatingWebhookConfiguration')).toEqual([env.MUTATING_WEBHOOK_CONFIGURATION]);
      // The self-certificate roles: each resourceName is the Secret or an object the release renders.
      const roles = objects.filter((o) => /Role$/.test(o.kind!) && o.metadata!.name!.startsWith(`${prefix}webhook-cert-`));
      expect(roles.map((r) => `${r.kind}/${r.metadata!.name}`).sort()).toEqual([
        `ClusterRole/${prefix}webhook-cert-crd-memcacheds-role`,
        `ClusterRole/${prefix}webhook-cert-mutating-role`,
        `ClusterRole/${prefix}webhook-cert-validating-role`,
        `Role/${prefix}webhook-cert-secret-role`,
      ]);
      const kindOf: Record<string, string> = {
        secrets: 'Secret',
        validatingwebhookconfigurations: 'ValidatingWebhookConfiguration',
        mutatingwebhookconfigurations: 'MutatingWebhookConfiguration',
        customresourcedefinitions: 'CustomResourceDefinition',
      };
      const referred: string[] = [];
      for (const role of roles) {
        for (const rule of role.rules as { resources: string[]; resourceNames?: string[] }[]) {
          for (const name of rule.resourceNames ?? []) {
            const kind = kindOf[rule.resources[0]!]!;
            referred.push(`${kind}/${name}`);
            if (kind === 'Secret') expect(name).toBe(env.WEBHOOK_CERT_SECRET);
            else expect(named(objects, kind), `${role.metadata!.name}: ${kind} ${name}`).toContain(name);
          }
        }
      }
      expect(referred.sort()).toEqual([
        'CustomResourceDefinition/memcacheds.cache.example.com',
        `MutatingWebhookConfiguration/${env.MUTATING_WEBHOOK_CONFIGURATION}`,
        `Secret/${env.WEBHOOK_CERT_SECRET}`,
        `ValidatingWebhookConfiguration/${env.VALIDATING_WEBHOOK_CONFIGURATION}`,
      ]);
      // Every binding binds an existing role to the release's service account.
      for (const b of objects.filter((o) => /RoleBinding$/.test(o.kind!) && o.metadata!.name!.startsWith(`${prefix}webhook-cert-`))) {
        expect(named(objects, b.roleRef.kind), b.metadata!.name).toContain(b.roleRef.name);
        expect(b.subjects).toEqual([{ kind: 'ServiceAccount', name: `${prefix}controller-manager`, namespace: NS }]);
      }
      const rendered = JSON.stringify(objects);
      expect(rendered).not.toMatch(/cert-manager/);
      expect(rendered).not.toMatch(/--webhook-cert-path/);
    }
    // No cert-manager toggle: values.schema.json refuses it.
    const r = await helm(project.dir, 'template', RELEASE, chart(), '--set', 'certManager.enabled=true');
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/certManager/);
    // The webhooks off: no self-certificate variables.
    expect(Object.keys(envOf(await render('webhook.enabled=false')))).not.toContain('WEBHOOK_CERT_SECRET');
  });

  it('generate --check finds the chart up to date (the same bytes generated again)', async () => {
    const r = await opgen(project.dir, 'generate', '--check');
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('installed on envtest, a manager as the release\'s service account makes the chart\'s Secret and injects every CA bundle', async () => {
    const objects = await render();
    const env = await startTestEnv({});
    try {
      const admin = createClient(env.kubeConfig);
      await admin.create(kinds.Namespace!, { metadata: { name: NS } } as Obj);
      // Every rendered object is one the API server takes (server-side dry run).
      const all = await helm(project.dir, 'template', RELEASE, chart(), '--namespace', NS);
      const dryRun = await execa('kubectl', ['--kubeconfig', env.kubeconfigPath, 'apply', '--server-side', '--dry-run=server', '-f', '-'], { input: all.stdout, reject: false });
      expect(dryRun.exitCode, dryRun.stderr).toBe(0);
      expect(dryRun.stdout.trim().split('\n').length).toBe(objects.length);
      // What the manager needs here: its account, the self-certificate RBAC, the objects it patches.
      const install = objects.filter((o) => o.kind === 'ServiceAccount' || o.kind!.endsWith('WebhookConfiguration') || o.kind === 'CustomResourceDefinition'
        || (o.kind!.includes('Role') && o.metadata!.name!.includes('-webhook-cert-')));
      for (const o of install) await admin.create(kinds[o.kind!]!, o);
      const sa = objects.find((o) => o.kind === 'ServiceAccount')!.metadata!.name!;
      const kubeConfig = await serviceAccountKubeConfig(env, NS, sa, project.dir);

      // The options as the scaffold's main.ts reads them, from the rendered Deployment's variables.
      const options = selfCertificateFromEnv(envOf(objects), join(project.dir, 'no-cert-dir'))!;
      const crd = named(objects, 'CustomResourceDefinition')[0]!;
      const mgr = await createManager({
        kubeConfig, logger: silentLogger(),
        webhook: { host: '127.0.0.1', port: 0, selfCertificate: { ...options, namespace: NS, conversionCrds: [crd] } },
      });
      mgr.webhookServer.register('/validate', () => ({ allowed: true }));
      const ctl = new AbortController();
      const done = mgr.start(ctl.signal);
      try {
        await mgr.webhookServer.listening();
        const secret = await admin.get(kinds.Secret!, { namespace: NS, name: `${RELEASE}-demo-webhook-server-cert` });
        const ca = secret.data['ca.crt'] as string;
        await eventually(async () => {
          for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
            for (const name of named(objects, kind)) {
              const o = await admin.get(kinds[kind]!, { name });
              expect((o.webhooks as { clientConfig: { caBundle?: string } }[]).map((w) => w.clientConfig.caBundle), `${kind} ${name}`).toEqual(o.webhooks.map(() => ca));
            }
          }
          expect((await admin.get(kinds.CustomResourceDefinition!, { name: crd })).spec.conversion.webhook.clientConfig.caBundle).toBe(ca);
        }, { timeoutMs: 30_000 });
        expect(mgr.webhookServer.options.certificateProvider!.stats).toMatchObject({ secretWrites: 1, injections: 3 });
      } finally {
        ctl.abort();
        await done;
      }
    } finally {
      await env.stop();
    }
  }, 180_000);
});
