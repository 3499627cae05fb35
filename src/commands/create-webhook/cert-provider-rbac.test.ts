// The scaffold's --cert-provider self RBAC is enough, and no more: `kubectl kustomize config/default` of a
// scaffolded project installed on a real API server (envtest), and a manager running as the project's
// service account (a token of its own, nothing else bound) makes its Secret and injects the CA into the
// webhook configurations and the conversion CRD; the same account may not touch another configuration.
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createManager, groupVersion, silentLogger, type Client, type KubeObject } from '@opgen/runtime';
import { eventually, startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { opgenOk } from '../../testdata/cli.js';
import { tempDir } from '../../testdata/files.js';
import { selfCertMemcachedProject } from '../../testdata/memcached-project.js';
import { serviceAccountKubeConfig } from '../../testdata/service-account.js';

type Obj = KubeObject & Record<string, any>;
const kinds = {
  Namespace: groupVersion('', 'v1').kind<Obj>('Namespace', { namespaced: false }),
  ServiceAccount: groupVersion('', 'v1').kind<Obj>('ServiceAccount'),
  Secret: groupVersion('', 'v1').kind<Obj>('Secret'),
  Role: groupVersion('rbac.authorization.k8s.io', 'v1').kind<Obj>('Role'),
  RoleBinding: groupVersion('rbac.authorization.k8s.io', 'v1').kind<Obj>('RoleBinding'),
  ClusterRole: groupVersion('rbac.authorization.k8s.io', 'v1').kind<Obj>('ClusterRole', { namespaced: false }),
  ClusterRoleBinding: groupVersion('rbac.authorization.k8s.io', 'v1').kind<Obj>('ClusterRoleBinding', { namespaced: false }),
  ValidatingWebhookConfiguration: groupVersion('admissionregistration.k8s.io', 'v1').kind<Obj>('ValidatingWebhookConfiguration', { namespaced: false }),
  MutatingWebhookConfiguration: groupVersion('admissionregistration.k8s.io', 'v1').kind<Obj>('MutatingWebhookConfiguration', { namespaced: false }),
  CustomResourceDefinition: groupVersion('apiextensions.k8s.io', 'v1').kind<Obj>('CustomResourceDefinition', { namespaced: false }),
};

describe('--cert-provider self: the scaffold RBAC on a real API server', () => {
  const project = tempDir('opgen-self-rbac-', 'demo');
  let env: TestEnv;
  let admin: Client;
  let objects: Obj[];
  beforeAll(async () => {
    const dir = project.dir;
    await selfCertMemcachedProject(dir);
    const built = await execa('kubectl', ['kustomize', 'config/default'], { cwd: dir });
    objects = parseAllDocuments(built.stdout).map((d) => d.toJS() as Obj);
    env = await startTestEnv({});
    admin = createClient(env.kubeConfig);
    // What the manager needs here: its namespace, account, the self-certificate RBAC, the objects it patches.
    const install = objects.filter((o) => {
      const kind = o.kind ?? '';
      return kind === 'Namespace' || kind === 'ServiceAccount' || kind.endsWith('WebhookConfiguration') || kind === 'CustomResourceDefinition'
        || (kind.includes('Role') && o.metadata!.name!.startsWith('demo-webhook-cert'));
    });
    for (const o of install) await admin.create(kinds[o.kind as keyof typeof kinds], o);
  }, 240_000);
  afterAll(async () => {
    await env?.stop();
    project.cleanup();
  });

  it('the manager as its service account makes the Secret and injects every CA bundle; nothing beyond its objects', async () => {
    const kubeConfig = await serviceAccountKubeConfig(env, 'demo-system', 'demo-controller-manager', project.dir);

    // The names the rendered Deployment gives the manager.
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const envOf = Object.fromEntries((deployment.spec.template.spec.containers[0].env as { name: string; value: string }[]).map((e) => [e.name, e.value]));
    const vwc = objects.find((o) => o.kind === 'ValidatingWebhookConfiguration')!.metadata!.name!;
    const mwc = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!.metadata!.name!;
    const crd = objects.find((o) => o.kind === 'CustomResourceDefinition')!.metadata!.name!;
    const mgr = await createManager({
      kubeConfig, logger: silentLogger(),
      webhook: {
        host: '127.0.0.1', port: 0,
        selfCertificate: {
          secretName: envOf.WEBHOOK_CERT_SECRET!, serviceName: envOf.WEBHOOK_SERVICE_NAME!, namespace: 'demo-system',
          validatingWebhookConfigurations: [envOf.VALIDATING_WEBHOOK_CONFIGURATION!], mutatingWebhookConfigurations: [envOf.MUTATING_WEBHOOK_CONFIGURATION!],
          conversionCrds: [crd],
        },
      },
    });
    mgr.webhookServer.register('/validate', () => ({ allowed: true }));
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    try {
      await mgr.webhookServer.listening();
      const secret = await admin.get(kinds.Secret, { namespace: 'demo-system', name: 'webhook-server-cert' });
      const ca = secret.data['ca.crt'] as string;
      await eventually(async () => {
        for (const [kind, name] of [['ValidatingWebhookConfiguration', vwc], ['MutatingWebhookConfiguration', mwc]] as const) {
          const o = await admin.get(kinds[kind], { name });
          expect((o.webhooks as { clientConfig: { caBundle?: string } }[]).map((w) => w.clientConfig.caBundle), `${kind} ${name}`).toEqual(o.webhooks.map(() => ca));
        }
        expect((await admin.get(kinds.CustomResourceDefinition, { name: crd })).spec.conversion.webhook.clientConfig.caBundle).toBe(ca);
      }, { timeoutMs: 30_000 });
      expect(mgr.webhookServer.options.certificateProvider!.stats).toMatchObject({ secretWrites: 1, injections: 3 });

      // The account's rights stop at its own objects.
      const sa = createClient(kubeConfig);
      await admin.create(kinds.ValidatingWebhookConfiguration, { metadata: { name: 'someone-else' }, webhooks: [] } as Obj);
      const other = await admin.get(kinds.ValidatingWebhookConfiguration, { name: 'someone-else' });
      await expect(sa.update(kinds.ValidatingWebhookConfiguration, other)).rejects.toThrow(/forbidden/i);
      await admin.create(kinds.Secret, { metadata: { name: 'other', namespace: 'demo-system' }, data: { a: 'Yg==' } } as Obj);
      await expect(sa.get(kinds.Secret, { namespace: 'demo-system', name: 'other' })).rejects.toThrow(/forbidden/i);
      await expect(sa.list(kinds.Secret, { namespace: 'demo-system' })).rejects.toThrow(/forbidden/i);
    } finally {
      ctl.abort();
      await done;
    }
  }, 120_000);
});
