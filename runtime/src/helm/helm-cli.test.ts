// What the Helm reconciler hands the helm binary (a kubeconfig from the runtime's credentials, private
// to the run) and how it compares a release's manifest with live objects. The reconciler against a
// cluster and the real helm: test/helm-operator/helm-operator.test.ts.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeConfigLike } from '../kubeconfig/index.js';
import { firstDifference, manifestObjects } from './drift.js';
import { HelmCli, HelmError, kubeconfigFile } from './helm-cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'opgen-helm-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function kubeConfig(apply: (o: RequestOptions) => void, skipTLSVerify = false): KubeConfigLike {
  return {
    getCurrentCluster: () => ({ name: 'c', server: 'https://10.0.0.1:6443', skipTLSVerify }) as ReturnType<KubeConfigLike['getCurrentCluster']>,
    applyToHTTPSOptions: async (o) => apply(o),
  };
}

describe('kubeconfigFile', () => {
  it('carries the bearer token and CA the runtime would send', async () => {
    const file = await kubeconfigFile(kubeConfig((o) => { o.ca = 'CA-PEM'; o.headers = { Authorization: 'Bearer tok-1' }; })) as any;
    expect(file.clusters[0].cluster).toEqual({ server: 'https://10.0.0.1:6443', 'certificate-authority-data': Buffer.from('CA-PEM').toString('base64') });
    expect(file.users[0].user).toEqual({ token: 'tok-1' });
    expect(file['current-context']).toBe('operator');
  });

  it('carries a client certificate, and insecure-skip-tls-verify instead of a CA when the cluster says so', async () => {
    const file = await kubeconfigFile(kubeConfig((o) => { o.cert = Buffer.from('CERT'); o.key = Buffer.from('KEY'); }, true)) as any;
    expect(file.users[0].user).toEqual({ 'client-certificate-data': Buffer.from('CERT').toString('base64'), 'client-key-data': Buffer.from('KEY').toString('base64') });
    expect(file.clusters[0].cluster).toEqual({ server: 'https://10.0.0.1:6443', 'insecure-skip-tls-verify': true });
  });
});

describe('HelmCli', () => {
  it('gives helm a kubeconfig readable by the operator only, and private Helm homes, removed after the run', async () => {
    // A stand-in binary that reports what it was given, as `helm status -o json` would print a release.
    const bin = join(scratch, 'fake-helm');
    writeFileSync(bin, '#!/bin/sh\nprintf \'{"name":"%s","namespace":"%s","version":1,"manifest":"%s"}\' "$(stat -c %a "$KUBECONFIG")" "$HELM_CACHE_HOME" "$(grep -c tok-2 "$KUBECONFIG")"\n');
    chmodSync(bin, 0o755);
    const cli = new HelmCli({ binary: bin, kubeConfig: kubeConfig((o) => { o.headers = { Authorization: 'Bearer tok-2' }; }) });
    const release = await cli.status('x', 'ns');
    expect(release?.name).toBe('600');
    expect(release?.manifest).toBe('1');
    expect(release?.namespace.startsWith(join(tmpdir(), 'opgen-helm-'))).toBe(true);
    expect(() => chmodSync(release!.namespace, 0o700)).toThrow(/ENOENT/);
  });

  it('a missing binary is one error naming HELM_BINARY', async () => {
    const cli = new HelmCli({ binary: join(scratch, 'no-such-helm'), kubeConfig: kubeConfig(() => {}) });
    const err = await cli.status('x', 'ns').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HelmError);
    expect((err as Error).message).toBe(`the helm binary ${join(scratch, 'no-such-helm')} was not found: install helm in the image or set HELM_BINARY`);
  });

  it('Helm\'s message without its "Error: " prefix', async () => {
    const bin = join(scratch, 'failing-helm');
    writeFileSync(bin, '#!/bin/sh\necho "Error: INSTALLATION FAILED: execution error at (webapp/templates/ingress.yaml:2:37): host is required" >&2\nexit 1\n');
    chmodSync(bin, 0o755);
    const cli = new HelmCli({ binary: bin, kubeConfig: kubeConfig(() => {}) });
    const err = await cli.upgradeInstall('x', 'ns', '/chart', {}).catch((e: unknown) => e);
    expect((err as HelmError).message).toBe('INSTALLATION FAILED: execution error at (webapp/templates/ingress.yaml:2:37): host is required');
    expect((err as HelmError).exitCode).toBe(1);
  });
});

describe('drift', () => {
  it('manifestObjects skips empty documents', () => {
    expect(manifestObjects('---\n# Source: x\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n').map((o) => o.kind)).toEqual(['Service']);
  });

  it('firstDifference: what the manifest sets must be live; extra live fields are not drift', () => {
    const wanted = { metadata: { name: 'a' }, spec: { replicas: 3, ports: [{ port: 80, targetPort: 'http' }] } };
    const live = { metadata: { name: 'a', uid: 'u' }, spec: { replicas: 3, ports: [{ port: 80, targetPort: 'http', protocol: 'TCP' }] }, status: {} };
    expect(firstDifference(wanted, live)).toBeUndefined();
    expect(firstDifference(wanted, { ...live, spec: { ...live.spec, replicas: 1 } })).toBe('/spec/replicas');
    expect(firstDifference(wanted, { ...live, spec: { ...live.spec, ports: [] } })).toBe('/spec/ports');
    expect(firstDifference({ data: { port: 8080 } }, { data: { port: '8080' } })).toBeUndefined();
    expect(firstDifference({ spec: { x: null } }, { spec: {} })).toBeUndefined();
  });

  it('firstDifference: quantities the API server rewrote are the same value', () => {
    const limits = (cpu: unknown, memory: unknown) => ({ resources: { limits: { cpu, memory } } });
    expect(firstDifference(limits('0.5', '1Gi'), limits('500m', '1024Mi'))).toBeUndefined();
    expect(firstDifference(limits(2, '1e3'), limits('2', '1k'))).toBeUndefined();
    expect(firstDifference(limits('0.5', '1G'), limits('500m', '1Gi'))).toBe('/resources/limits/memory');
    expect(firstDifference(limits('250m', '1Gi'), limits('500m', '1Gi'))).toBe('/resources/limits/cpu');
    expect(firstDifference({ image: 'nginx:1.27' }, { image: 'nginx:1.28' })).toBe('/image');
  });
});
