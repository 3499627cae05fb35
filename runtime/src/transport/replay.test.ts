// Which requests the transport sends again after a connection reset, against a real kube-apiserver
// (envtest) behind a TCP proxy of the test's own: the proxy passes the request on, lets the server act
// on it, drops the answer and resets the client's keep-alive connection. Only a request that does no
// harm twice may be sent again; any other must surface the reset to its caller.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap } from '../api/builtins.js';
import { ApiClient, createClient, type Client } from '../client/client.js';
import { isConflict } from '../client/errors.js';
import { startTestEnv, type TestEnv } from '../envtest/index.js';
import type { KubeConfigLike } from '../kubeconfig/index.js';
import { Transport } from './transport.js';

/**
 * Forwards TCP both ways. Once armed, the next bytes a client sends on a connection that carried a
 * request before are passed to the server, whose answer is dropped, and 300 ms later (time for the
 * server to act) the client's side is reset. Counts connections.
 */
class ResettingProxy {
  private readonly server = net.createServer((client) => this.connect(client));
  connections = 0;
  resets = 0;
  private armed = false;

  async listen(target: URL): Promise<number> {
    this.target = target;
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return (this.server.address() as net.AddressInfo).port;
  }

  private target!: URL;

  arm(): void {
    this.armed = true;
  }

  close(): void {
    this.server.close();
  }

  private connect(client: net.Socket): void {
    this.connections++;
    const upstream = net.connect(Number(this.target.port), this.target.hostname);
    let used = false;
    let cut = false;
    upstream.on('data', (d) => {
      if (!cut) client.write(d);
    });
    client.on('data', (d) => {
      if (used && this.armed && !cut) {
        this.armed = false;
        cut = true;
        this.resets++;
        setTimeout(() => {
          client.resetAndDestroy();
          upstream.destroy();
        }, 300);
      }
      used = true;
      upstream.write(d);
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}

let env: TestEnv;
let admin: Client;
const proxy = new ResettingProxy();
let throughProxy: KubeConfigLike;
const ns = 'default';

beforeAll(async () => {
  env = await startTestEnv();
  admin = createClient(env.kubeConfig);
  const port = await proxy.listen(new URL(env.server));
  // The API server's certificate names 127.0.0.1, which the proxy listens on too; the CA and the
  // client certificate come from envtest's kubeconfig.
  throughProxy = {
    getCurrentCluster: () => ({ name: 'through-proxy', server: `https://127.0.0.1:${port}`, skipTLSVerify: false }),
    applyToHTTPSOptions: (opts) => env.kubeConfig.applyToHTTPSOptions(opts),
  };
});
afterAll(async () => {
  proxy.close();
  await env?.stop();
});

/** A client on a fresh transport through the proxy, with one keep-alive connection already used. */
async function warmClient(name: string): Promise<{ client: ApiClient; transport: Transport }> {
  const transport = new Transport(throughProxy);
  const client = new ApiClient(transport, 'replay-test');
  await client.get(ConfigMap, { namespace: ns, name });
  return { client, transport };
}

async function configMap(name: string, data: Record<string, string> = { n: '0' }) {
  return admin.create(ConfigMap, { metadata: { namespace: ns, name }, data });
}

/** Runs `write` with the proxy armed; what it resolved or rejected with, and how many connections it took. */
async function afterReset<T>(transport: Transport, write: () => Promise<T>): Promise<{ value?: T; err?: Error & { code?: string }; newConnections: number }> {
  const before = proxy.connections;
  proxy.arm();
  try {
    const value = await write();
    return { value, newConnections: proxy.connections - before };
  } catch (err) {
    return { err: err as Error, newConnections: proxy.connections - before };
  } finally {
    transport.destroy();
  }
}

describe('after a connection reset once the request may have reached the server', () => {
  it('an update without a resourceVersion is not sent again: the caller gets the reset, the server applied it once', async () => {
    await configMap('plain-update');
    const { client, transport } = await warmClient('plain-update');
    const out = await afterReset(transport, () => client.update(ConfigMap, { metadata: { namespace: ns, name: 'plain-update' }, data: { n: '1' } }));
    expect(out.err?.message).toMatch(/ECONNRESET|socket hang up|closed/);
    expect(out.newConnections).toBe(0);
    expect((await admin.get(ConfigMap, { namespace: ns, name: 'plain-update' })).data).toEqual({ n: '1' });
  });

  it('a merge patch without a precondition and a delete without one are not sent again either', async () => {
    await configMap('plain-patch');
    let { client, transport } = await warmClient('plain-patch');
    const patched = await afterReset(transport, () => client.patch(ConfigMap, { namespace: ns, name: 'plain-patch' }, { type: 'merge', body: { data: { extra: 'x' } } }));
    expect(patched.err).toBeDefined();
    expect(patched.newConnections).toBe(0);

    await configMap('plain-delete');
    ({ client, transport } = await warmClient('plain-delete'));
    const deleted = await afterReset(transport, () => client.delete(ConfigMap, { namespace: ns, name: 'plain-delete' }));
    // Not a NotFound from a second delete: the reset itself, so the caller knows the outcome is unknown.
    expect(deleted.err?.name).not.toBe('ApiError');
    expect(deleted.newConnections).toBe(0);
    await expect(admin.get(ConfigMap, { namespace: ns, name: 'plain-delete' })).rejects.toThrow(/not found/);
  });

  it('an update carrying its resourceVersion is sent again, and the server refuses the second with a conflict', async () => {
    const current = await configMap('versioned-update');
    const { client, transport } = await warmClient('versioned-update');
    const out = await afterReset(transport, () => client.update(ConfigMap, { ...current, data: { n: '1' } }));
    expect(out.newConnections).toBe(1);
    expect(isConflict(out.err)).toBe(true);
    expect((await admin.get(ConfigMap, { namespace: ns, name: 'versioned-update' })).data).toEqual({ n: '1' });
  });

  it('a read and a server-side apply are sent again and succeed', async () => {
    await configMap('read-and-apply');
    let { client, transport } = await warmClient('read-and-apply');
    const read = await afterReset(transport, () => client.get(ConfigMap, { namespace: ns, name: 'read-and-apply' }));
    expect(read.newConnections).toBe(1);
    expect(read.value?.data).toEqual({ n: '0' });

    ({ client, transport } = await warmClient('read-and-apply'));
    const applied = await afterReset(transport, () =>
      client.apply(ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: 'read-and-apply' }, data: { applied: 'yes' } }, { fieldManager: 'replay-test', force: true }),
    );
    expect(applied.err).toBeUndefined();
    expect(applied.newConnections).toBe(1);
    expect(applied.value?.data?.applied).toBe('yes');
  });
});
