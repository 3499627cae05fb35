// A --cert-provider self project still makes a valid OLM bundle: its webhooks become webhookdefinitions
// (OLM makes and mounts their certificate; the manager then leaves its own provider off, see
// runtime/src/webhook/certprovider/options.test.ts), nothing of cert-manager's is in it, and
// operator-framework/api's validators find no error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { opgenOk, oracle, oracleErrors, scaffoldTutorial, tempDir } from './helpers.js';

type Obj = Record<string, any>;

describe('OLM bundle of a --cert-provider self project', () => {
  const root = tempDir('opgen-olm-self-');
  let p: string;
  let out: { stdout: string; stderr: string };
  beforeAll(async () => {
    p = await scaffoldTutorial(root.dir, 'self-operator');
    await opgenOk(p, 'create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached', '--controller=false');
    await opgenOk(p, 'create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation', '--conversion', '--spoke', 'v1beta1', '--cert-provider', 'self');
    await opgenOk(p, 'generate');
    await opgenOk(p, 'generate', 'kustomize', 'manifests');
    out = await opgenOk(p, 'generate', 'bundle', '--version', '0.1.0');
  }, 180_000);
  afterAll(() => root.cleanup());

  it('has the three webhookdefinitions, no cert-manager object or annotation, and passes the validators', () => {
    const text = readFileSync(join(p, 'bundle/manifests/self-operator.clusterserviceversion.yaml'), 'utf8');
    const csv = parse(text) as Obj;
    expect((csv.spec.webhookdefinitions as Obj[]).map((w) => w.type).sort()).toEqual(['ConversionWebhook', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook']);
    expect(text).not.toContain('cert-manager');
    expect(out.stderr).not.toContain('cert-manager');
    const pod = csv.spec.install.spec.deployments[0].spec.template.spec;
    // The manager keeps the names it reads (its provider stays off under OLM's mounted certificate).
    expect((pod.containers[0].env as Obj[]).map((e) => e.name)).toEqual(expect.arrayContaining(['WEBHOOK_CERT_SECRET', 'WEBHOOK_SERVICE_NAME']));
    expect(oracleErrors(oracle(join(p, 'bundle')))).toEqual([]);
  });
});
