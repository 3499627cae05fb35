// A kubeconfig that cannot work fails with one line that names the file, the field and the fix.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { KubeConfigError, loadKubeConfig } from './index.js';

const plugin = fileURLToPath(new URL('./testdata/exec-plugin.mjs', import.meta.url));
const savedEnv = { ...process.env };
let work: string;
let home: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'opgen-kubeconfig-err-'));
  home = join(work, 'home');
  mkdirSync(join(home, '.kube'), { recursive: true });
  process.env.HOME = home;
  delete process.env.KUBECONFIG;
  delete process.env.KUBERNETES_SERVICE_HOST;
  delete process.env.KUBERNETES_SERVICE_PORT;
});

afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  rmSync(work, { recursive: true, force: true });
});

function homeConfig(user: object, cluster: object = { server: 'https://c.example.com' }, extra: object = {}): void {
  writeFileSync(
    join(home, '.kube', 'config'),
    stringify({
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'dev', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'dev' } }],
      'current-context': 'x',
      ...extra,
    }),
  );
}

/** The error loading (and, when load succeeds, using) the kubeconfig fails with. */
async function failure(): Promise<KubeConfigError> {
  const err = await loadKubeConfig()
    .then((kc) => kc.applyToHTTPSOptions({}))
    .then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(KubeConfigError);
  const message = (err as Error).message;
  expect(message.split('\n')).toHaveLength(1);
  return err as KubeConfigError;
}

const execUser = (exec: object) => ({
  exec: { apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never', command: process.execPath, args: [plugin], ...exec },
});

describe('one-line errors', () => {
  it('a file in $KUBECONFIG that does not exist', async () => {
    process.env.KUBECONFIG = join(work, 'nope.yaml');
    expect((await failure()).message).toBe(`${join(work, 'nope.yaml')}: does not exist (listed in $KUBECONFIG); fix the path or unset KUBECONFIG`);
  });

  it('a client-key that does not exist (relative to the kubeconfig)', async () => {
    homeConfig({ 'client-certificate-data': 'Y2VydA==', 'client-key': 'keys/dev.key' });
    expect((await failure()).message).toBe(`~/.kube/config: user "dev" names client-key ${join(home, '.kube', 'keys/dev.key')}, which does not exist; fix the path`);
  });

  it('an unknown current-context', async () => {
    homeConfig({ token: 't' }, undefined, { 'current-context': 'staging' });
    expect((await failure()).message).toBe('~/.kube/config: current-context "staging" names no context (contexts: x); fix it with `kubectl config use-context NAME`');
  });

  it('no current-context', async () => {
    homeConfig({ token: 't' }, undefined, { 'current-context': '' });
    expect((await failure()).message).toMatch(/^~\/.kube\/config: no current-context; set one with `kubectl config use-context NAME`$/);
  });

  it('a context naming a user no entry defines', async () => {
    writeFileSync(join(home, '.kube', 'config'), stringify({
      clusters: [{ name: 'c', cluster: { server: 'https://c.example.com' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'ghost' } }],
      'current-context': 'x',
    }));
    expect((await failure()).message).toBe('~/.kube/config: context "x" names user "ghost", which no users[] entry defines; add it or fix the context');
  });

  it('an exec command that is not installed, with its installHint', async () => {
    homeConfig(execUser({ command: 'no-such-auth-plugin', args: [], installHint: 'Install it with\n  brew install no-such-auth-plugin' }));
    expect((await failure()).message).toBe('exec plugin "no-such-auth-plugin" for user "dev" in ~/.kube/config was not found (Install it with | brew install no-such-auth-plugin); install it or fix users[].user.exec.command');
  });

  it('an exec plugin that exits non-zero: the command, the exit code and its stderr', async () => {
    homeConfig(execUser({ env: [{ name: 'PLUGIN_FAIL', value: 'token expired' }] }));
    expect((await failure()).message).toBe(`exec plugin "${process.execPath}" for user "dev" in ~/.kube/config exited with 3: error: token expired | run 'login' first`);
  });

  it('an exec plugin that prints no ExecCredential', async () => {
    homeConfig(execUser({ command: 'true', args: [] }));
    expect((await failure()).message).toMatch(/^exec plugin "true" for user "dev" in ~\/.kube\/config printed no JSON; it must print an ExecCredential/);
  });

  it('exec apiVersion v1 without interactiveMode, and an unknown apiVersion', async () => {
    homeConfig(execUser({ interactiveMode: undefined }));
    expect((await failure()).message).toBe('~/.kube/config: user "dev" has exec apiVersion client.authentication.k8s.io/v1 without interactiveMode; add interactiveMode: Never (or IfAvailable)');
    homeConfig(execUser({ apiVersion: 'client.authentication.k8s.io/v1alpha1' }));
    expect((await failure()).message).toBe('~/.kube/config: user "dev" has exec apiVersion "client.authentication.k8s.io/v1alpha1"; use client.authentication.k8s.io/v1 (or v1beta1)');
  });

  it('interactiveMode Always without a terminal', async () => {
    homeConfig(execUser({ interactiveMode: 'Always' }));
    expect((await failure()).message).toMatch(/interactiveMode Always, but standard input is not a terminal/);
  });

  it('a proxy-url other than http:// (socks5), or one for a plain-HTTP server: names the file and the cluster', async () => {
    homeConfig({ token: 't' }, { server: 'https://c.example.com', 'proxy-url': 'socks5://proxy:1080' });
    expect((await failure()).message).toBe('~/.kube/config: cluster "c" sets proxy-url socks5://proxy:1080, a socks5 proxy, where only http:// proxies (HTTP CONNECT) are supported; fix or remove proxy-url');
    homeConfig({ token: 't' }, { server: 'http://c.example.com', 'proxy-url': 'http://proxy:3128' });
    expect((await failure()).message).toBe('~/.kube/config: cluster "c" sets proxy-url http://proxy:3128 for the plain-HTTP server http://c.example.com, where only https:// servers can be reached through a proxy; fix or remove proxy-url');
  });

  it('a cluster without a server, and a YAML syntax error', async () => {
    homeConfig({ token: 't' }, { 'certificate-authority-data': 'Q0E=' });
    expect((await failure()).message).toBe('~/.kube/config: cluster "c" has no server; add clusters[].cluster.server (e.g. https://host:6443)');
    writeFileSync(join(home, '.kube', 'config'), 'clusters: [\n');
    expect((await failure()).message).toMatch(/^~\/.kube\/config: is not valid YAML \(.*\); fix the file$/);
    // Broken JSON is read as YAML too (JSON is YAML): the same one line, with yaml's position.
    writeFileSync(join(home, '.kube', 'config'), '{"clusters": [\n');
    expect((await failure()).message).toMatch(/^~\/.kube\/config: is not valid YAML \(.*line \d+.*\); fix the file$/);
  });

  it('a kubeconfig in YAML flow style ({...} that is not JSON) is still read', async () => {
    writeFileSync(
      join(home, '.kube', 'config'),
      "{clusters: [{name: c, cluster: {server: 'https://flow.example.com'}}], users: [{name: dev, user: {token: t}}], contexts: [{name: x, context: {cluster: c, user: dev}}], current-context: x}\n",
    );
    expect((await loadKubeConfig()).getCurrentCluster()?.server).toBe('https://flow.example.com');
  });

  it('in-cluster without KUBERNETES_SERVICE_HOST', async () => {
    rmSync(join(home, '.kube'), { recursive: true });
    const sa = join(work, 'sa');
    mkdirSync(sa);
    writeFileSync(join(sa, 'token'), 't');
    const err = await loadKubeConfig({ serviceAccountDir: sa }).catch((e: unknown) => e);
    expect((err as Error).message).toBe(`in-cluster config: ${sa}/token exists but KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set; run in a pod or set KUBECONFIG`);
  });
});
