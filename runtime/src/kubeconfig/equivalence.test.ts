// loadKubeConfig() and client-node's KubeConfig.loadFromDefault() read the same kubeconfigs the
// same way: the same current cluster, and the same TLS and auth options for a request. Where they
// differ on purpose (client-go's behaviour, see internal/load.ts), the test says so and asserts it.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadKubeConfig, type KubeConfigLike } from './index.js';

const fixtures = fileURLToPath(new URL('./testdata/equivalence/', import.meta.url));
const plugin = fileURLToPath(new URL('./testdata/exec-plugin.mjs', import.meta.url));
const savedEnv = { ...process.env };
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'opgen-kubeconfig-eq-'));
  cpSync(fixtures, join(work, 'fixtures'), { recursive: true });
  writeFileSync(join(work, 'plugin-token'), 'exec-t0ken');
  const exec = join(work, 'fixtures', 'exec.yaml');
  writeFileSync(
    exec,
    readFileSync(exec, 'utf8')
      .replaceAll('__NODE__', process.execPath)
      .replaceAll('__PLUGIN__', plugin)
      .replaceAll('__TOKEN_FILE__', join(work, 'plugin-token')),
  );
});

afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** An empty HOME, no in-cluster variables, and KUBECONFIG as given. */
function environment(kubeconfig?: string): void {
  process.env.HOME = mkdtempSync(join(work, 'home-'));
  delete process.env.KUBERNETES_SERVICE_HOST;
  delete process.env.KUBERNETES_SERVICE_PORT;
  if (kubeconfig === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = kubeconfig;
}

function clientNode(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}

/** What applyToHTTPSOptions puts on a request, comparable across the two (Buffers and strings as text). */
async function applied(kc: KubeConfigLike): Promise<Record<string, unknown>> {
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const text = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return {
    ca: text(opts.ca),
    cert: text(opts.cert),
    key: text(opts.key),
    headers: opts.headers ?? {},
    auth: opts.auth ?? undefined,
    rejectUnauthorized: opts.rejectUnauthorized,
    servername: opts.servername,
  };
}

function writeConfig(name: string, doc: object): string {
  const file = join(work, name);
  writeFileSync(file, stringify(doc));
  return file;
}

const fixtureFiles = readdirSync(fixtures).filter((f) => f.endsWith('.yaml'));

describe('the same as client-node', () => {
  it.each(fixtureFiles)('%s', async (fixture) => {
    environment(join(work, 'fixtures', fixture));
    const theirs = clientNode();
    const ours = await loadKubeConfig();
    expect(ours.getCurrentCluster()?.server).toBe(theirs.getCurrentCluster()?.server);
    const expected = await applied(theirs);
    expect(await applied(ours)).toEqual(expected);
    // Every fixture authenticates somehow (so an empty result on both sides would not pass).
    expect(expected.cert ?? expected.auth ?? (expected.headers as Record<string, string>).Authorization).toBeTruthy();
  });

  it('~/.kube/config when KUBECONFIG is unset', async () => {
    environment();
    mkdirSync(join(process.env.HOME!, '.kube'));
    cpSync(join(work, 'fixtures', 'token.yaml'), join(process.env.HOME!, '.kube', 'config'));
    const ours = await loadKubeConfig();
    expect(ours.getCurrentCluster()?.server).toBe('https://prod.example.com:6443');
    expect(await applied(ours)).toEqual(await applied(clientNode()));
  });

  it('a KUBECONFIG list of files with distinct names', async () => {
    const clusters = writeConfig('list-clusters.yaml', { clusters: [{ name: 'c', cluster: { server: 'https://c.example.com' } }] });
    const users = writeConfig('list-users.yaml', {
      'current-context': 'x',
      users: [{ name: 'u', user: { token: 'from-list' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    });
    environment(`${clusters}:${users}`);
    const ours = await loadKubeConfig();
    expect(ours.getCurrentCluster()?.server).toBe('https://c.example.com');
    expect(await applied(ours)).toEqual(await applied(clientNode()));
  });

  it('in-cluster: server from KUBERNETES_SERVICE_HOST/PORT (IPv6 in brackets), CA and token from the service-account folder', async () => {
    environment();
    const prefix = join(work, 'pod');
    const sa = join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'pod-t0ken');
    writeFileSync(join(sa, 'ca.crt'), 'cluster CA');
    for (const [host, server] of [['10.96.0.1', 'https://10.96.0.1:443'], ['fd00::1', 'https://[fd00::1]:443']]) {
      process.env.KUBERNETES_SERVICE_HOST = host;
      process.env.KUBERNETES_SERVICE_PORT = '443';
      const theirs = new KubeConfig();
      theirs.loadFromCluster(prefix); // loadFromDefault() with the folder moved under `prefix`
      const ours = await loadKubeConfig({ serviceAccountDir: sa });
      expect(ours.getCurrentCluster()?.server).toBe(server);
      expect(theirs.getCurrentCluster()?.server).toBe(server);
      expect(await applied(ours)).toEqual(await applied(theirs));
    }
  });

  // client-node's in-cluster check reads the real /var/run/secrets; inside a pod it would not get here.
  it.skipIf(existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token'))('no kubeconfig at all: both name http://localhost:8080 and both refuse to send a request', async () => {
    environment();
    const ours = await loadKubeConfig({ serviceAccountDir: join(work, 'no-such-dir') });
    const theirs = clientNode();
    expect(ours.getCurrentCluster()?.server).toBe('http://localhost:8080');
    expect(theirs.getCurrentCluster()?.server).toBe('http://localhost:8080');
    await expect(theirs.applyToHTTPSOptions({})).rejects.toThrow(/HTTP protocol is not allowed/);
    await expect(ours.applyToHTTPSOptions({})).rejects.toThrow(/^no kubeconfig: \$KUBECONFIG is not set, ~\/.kube\/config does not exist/);
  });
});

describe('different from client-node on purpose (client-go\'s behaviour)', () => {
  it('merged files: the first current-context and the first definition of a name win (client-node: the last current-context wins, a name defined twice throws)', async () => {
    const first = writeConfig('first.yaml', {
      'current-context': 'a',
      clusters: [{ name: 'c', cluster: { server: 'https://first.example.com' } }],
      users: [{ name: 'u', user: { token: 'first' } }],
      contexts: [{ name: 'a', context: { cluster: 'c', user: 'u' } }],
    });
    const second = writeConfig('second.yaml', {
      'current-context': 'b',
      clusters: [{ name: 'd', cluster: { server: 'https://second.example.com' } }],
      users: [{ name: 'v', user: { token: 'second' } }],
      contexts: [{ name: 'b', context: { cluster: 'd', user: 'v' } }],
    });
    environment(`${first}:${second}`);
    expect((await loadKubeConfig()).getCurrentCluster()?.server).toBe('https://first.example.com');
    expect(clientNode().getCurrentCluster()?.server).toBe('https://second.example.com');

    const duplicate = writeConfig('duplicate.yaml', { clusters: [{ name: 'c', cluster: { server: 'https://dup.example.com' } }] });
    environment(`${first}:${duplicate}`);
    expect((await loadKubeConfig()).getCurrentCluster()?.server).toBe('https://first.example.com');
    expect(() => clientNode()).toThrow('Duplicate cluster: c');
  });

  it('tokenFile (client-go\'s key) is read, re-read and trimmed; client-node reads only `token-file`, once, untrimmed', async () => {
    writeFileSync(join(work, 'tok'), 'file-t0ken\n');
    const doc = (user: object) => ({
      'current-context': 'x',
      clusters: [{ name: 'c', cluster: { server: 'https://c.example.com' } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    });
    environment(writeConfig('tokenfile.yaml', doc({ tokenFile: join(work, 'tok') })));
    expect((await applied(await loadKubeConfig())).headers).toEqual({ Authorization: 'Bearer file-t0ken' });
    expect((await applied(clientNode())).headers).toEqual({});

    environment(writeConfig('token-file.yaml', doc({ 'token-file': join(work, 'tok') })));
    const ours = await loadKubeConfig();
    expect((await applied(ours)).headers).toEqual({ Authorization: 'Bearer file-t0ken' });
    expect((await applied(clientNode())).headers).toEqual({ Authorization: 'Bearer file-t0ken\n' });
    writeFileSync(join(work, 'tok'), 'rotated');
    expect((await applied(ours)).headers).toEqual({ Authorization: 'Bearer rotated' });
  });

  it('a context without a user still gets the cluster\'s CA, server name and skip-verify (client-node applies none of them then)', async () => {
    environment(writeConfig('anonymous.yaml', {
      'current-context': 'x',
      clusters: [{ name: 'c', cluster: { server: 'https://c.example.com', 'certificate-authority-data': 'Zml4dHVyZSBDQQo=', 'tls-server-name': 'kube' } }],
      contexts: [{ name: 'x', context: { cluster: 'c' } }],
    }));
    expect(await applied(await loadKubeConfig())).toMatchObject({ ca: 'fixture CA\n', servername: 'kube' });
    expect(await applied(clientNode())).toMatchObject({ ca: undefined, servername: undefined });
  });

  it('an http:// server is allowed (client-node refuses it without insecure-skip-tls-verify)', async () => {
    environment(writeConfig('http.yaml', {
      'current-context': 'x',
      clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:8001' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    }));
    expect((await applied(await loadKubeConfig())).headers).toEqual({ Authorization: 'Bearer t' });
    await expect(clientNode().applyToHTTPSOptions({})).rejects.toThrow(/HTTP protocol is not allowed/);
  });

  it('a relative exec command resolves against the kubeconfig\'s folder (client-node runs it from the cwd)', async () => {
    const dir = join(work, 'relative-exec');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    cpSync(plugin, join(dir, 'bin', 'plugin.mjs'));
    environment(writeConfig('relative-exec/config', {
      'current-context': 'x',
      clusters: [{ name: 'c', cluster: { server: 'https://c.example.com' } }],
      users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './bin/plugin.mjs', interactiveMode: 'Never', env: [{ name: 'PLUGIN_TOKEN_FILE', value: join(work, 'plugin-token') }] } } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    }));
    expect((await applied(await loadKubeConfig())).headers).toEqual({ Authorization: 'Bearer exec-t0ken' });
    await expect(clientNode().applyToHTTPSOptions({})).rejects.toThrow(/ENOENT/);
  });
});
