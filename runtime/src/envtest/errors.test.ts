import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingBinariesError, startTestEnv } from './index.js';
import { processesMentioning } from './testdata/processes.js';

describe('startTestEnv errors', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'opgen-envtest-errors-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('receives KUBEBUILDER_ASSETS from vitest globalSetup in the worker process', () => {
    const assets = process.env.KUBEBUILDER_ASSETS ?? '';
    expect(assets).not.toBe('');
    for (const binary of ['kube-apiserver', 'etcd']) {
      expect(() => accessSync(join(assets, binary), constants.X_OK)).not.toThrow();
    }
  });

  it('says how to get the binaries when none are found, naming a folder this machine has', async () => {
    const assets = process.env.KUBEBUILDER_ASSETS ?? '';
    // A test-assets.sh cache holding a build, in a private cache root; no setup-envtest store.
    const cacheRoot = join(scratch, 'cache');
    const built = join(cacheRoot, 'k8s-1.36.3-etcd-3.6.16');
    mkdirSync(built, { recursive: true });
    for (const b of ['kube-apiserver', 'etcd']) symlinkSync(join(assets, b), join(built, b));
    const names = ['KUBEBUILDER_ASSETS', 'TEST_ASSET_KUBE_APISERVER', 'TEST_ASSET_ETCD', 'OPGEN_ASSETS_CACHE', 'XDG_DATA_HOME', 'HOME'] as const;
    const saved = names.map((n) => process.env[n]);
    process.env.KUBEBUILDER_ASSETS = join(scratch, 'empty');
    delete process.env.TEST_ASSET_KUBE_APISERVER;
    delete process.env.TEST_ASSET_ETCD;
    process.env.OPGEN_ASSETS_CACHE = cacheRoot;
    process.env.XDG_DATA_HOME = join(scratch, 'data');
    process.env.HOME = scratch;
    try {
      const err = await startTestEnv().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MissingBinariesError);
      const message = (err as Error).message;
      expect(message).toContain('no executable kube-apiserver and etcd found');
      expect(message).toContain(join(scratch, 'empty'));
      expect(message).toContain(`This machine has them in ${built}: \`export KUBEBUILDER_ASSETS=${built}\``);
      expect(message).toContain('setup-envtest use -p path');
      expect(message).toContain('.ci/test-assets.sh');
    } finally {
      names.forEach((n, i) => { if (saved[i] === undefined) delete process.env[n]; else process.env[n] = saved[i]; });
    }
  });

  it('rejects a start timeout that is not a Go duration', async () => {
    process.env.KUBEBUILDER_CONTROLPLANE_START_TIMEOUT = '2 minutes';
    try {
      await expect(startTestEnv()).rejects.toThrow('envtest: KUBEBUILDER_CONTROLPLANE_START_TIMEOUT=2 minutes is not a duration; write it like 90s, 2m or 1m30s');
    } finally {
      delete process.env.KUBEBUILDER_CONTROLPLANE_START_TIMEOUT;
    }
  });

  it('reports a server that exits while starting with its own output, and leaves nothing running', async () => {
    // A real user mistake: the wrong binary under the kube-apiserver name (here etcd).
    const assets = process.env.KUBEBUILDER_ASSETS ?? '';
    const wrong = join(scratch, 'wrong-assets');
    mkdirSync(wrong);
    symlinkSync(join(assets, 'etcd'), join(wrong, 'etcd'));
    symlinkSync(join(assets, 'etcd'), join(wrong, 'kube-apiserver'));
    // The environment's temp folder goes under TMPDIR: a private one shows whether it was removed.
    const privateTmp = join(scratch, 'tmp');
    mkdirSync(privateTmp);
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    let err: Error;
    try {
      err = await startTestEnv({ binaryAssetsDirectory: wrong }).then(
        async (env) => { await env.stop(); return new Error('it started with etcd as kube-apiserver'); },
        (e: unknown) => e as Error,
      );
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = savedTmp;
    }
    expect(err.message).toMatch(/^envtest: kube-apiserver exited \(\d+\) while starting; its last output:\n/);
    expect(err.message).toContain('flag provided but not defined: -advertise-address');
    // Its etcd was stopped and its folder removed.
    expect(readdirSync(privateTmp)).toEqual([]);
    expect(processesMentioning(wrong)).toEqual([]);
  });

  it('refuses apiServerFlags that would cut the server off from its environment', async () => {
    await expect(startTestEnv({ apiServerFlags: { 'secure-port': '6443' } })).rejects.toThrow(
      'envtest: apiServerFlags may not set --secure-port: the environment sets it to reach its own etcd, port and certificates',
    );
  });

  it('names a crdPaths entry that does not exist', async () => {
    const missing = join(scratch, 'no-such-crds');
    await expect(startTestEnv({ crdPaths: [missing] })).rejects.toThrow(`envtest: crdPaths entry ${missing} does not exist`);
  });

  it('names a crdPaths folder that holds no CRD (e.g. config/crd instead of config/crd/bases)', async () => {
    const crdFolder = join(scratch, 'crd');
    mkdirSync(join(crdFolder, 'bases'), { recursive: true });
    writeFileSync(join(crdFolder, 'kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [bases/x.yaml]\n');
    await expect(startTestEnv({ crdPaths: [crdFolder] })).rejects.toThrow(
      `envtest: crdPaths entry ${crdFolder} holds no CustomResourceDefinition; folders are read one level deep for .yaml, .yml and .json files`,
    );
  });

  it('names a CRD conversion patch whose CRD crdPaths does not install, before starting anything', async () => {
    const patch = new URL('./testdata/patches/webhook_in_parts.yaml', import.meta.url).pathname;
    await expect(startTestEnv({ webhookPaths: [patch] })).rejects.toThrow(
      `envtest: ${patch}: conversion patch for CRD parts.test.opgen.dev, which crdPaths does not install; add its CRD to crdPaths (in an opgen project: config/crd/bases, after \`opgen generate\`)`,
    );
  });

  it('points at the line and column of broken YAML', async () => {
    const broken = join(scratch, 'broken.yaml');
    writeFileSync(broken, 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: [unclosed\n');
    await expect(startTestEnv({ crdPaths: [broken] })).rejects.toThrow(new RegExp(`^envtest: ${broken}:\\d+:\\d+: not valid YAML`));
  });

  it('rejects a v1beta1 CRD with the fix', async () => {
    const old = join(scratch, 'old.yaml');
    writeFileSync(old, 'apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: olds.example.com\n');
    await expect(startTestEnv({ crdPaths: [old] })).rejects.toThrow('only apiextensions.k8s.io/v1 is served since Kubernetes 1.22');
  });

  it('reports a CRD the API server refuses with the server message', async () => {
    const bad = join(scratch, 'bad.yaml');
    writeFileSync(bad, [
      'apiVersion: apiextensions.k8s.io/v1', 'kind: CustomResourceDefinition', 'metadata:', '  name: bads.example.com',
      'spec:', '  group: example.com', '  scope: Namespaced', '  names: { kind: Bad, plural: bads }',
      '  versions:', '    - name: v1', '      served: true', '      storage: true',
      '      schema:', '        openAPIV3Schema:', '          properties:', '            spec: { type: object }', '',
    ].join('\n'));
    await expect(startTestEnv({ crdPaths: [bad] })).rejects.toThrow(
      /bad\.yaml: creating CRD bads\.example\.com failed \(HTTP 422\): .*openAPIV3Schema\.type: Required value: must not be empty at the root/,
    );
  });
});
