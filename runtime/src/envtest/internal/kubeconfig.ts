// The test environment's credentials without @kubernetes/client-node (an optional peer of the runtime):
// enough for the runtime's own createClient/createManager (KubeConfigLike), for a kubeconfig file and for
// code that reads clusters/users/contexts. client-node's KubeConfig is built only when asked for
// (makeApiClient, toClientNode), and a project without the package then gets one line naming it.
import { createRequire } from 'node:module';
import type * as https from 'node:https';
import type { KubeConfigLike } from '../../kubeconfig/index.js';

/** client-node's shapes for these (loadFromOptions takes them as they are). */
export interface EnvtestCluster { readonly name: string; readonly server: string; readonly caData: string; readonly skipTLSVerify: boolean }
export interface EnvtestUser { readonly name: string; readonly certData: string; readonly keyData: string }
export interface EnvtestContext { readonly name: string; readonly cluster: string; readonly user: string }

/** A constructor of one of client-node's generated API classes (CoreV1Api, CustomObjectsApi, ...). */
export type ApiClientConstructor<T> = new (configuration: never) => T;

/** The KubeConfig-shaped part of client-node this module calls; declared so its types need no client-node. */
interface ClientNodeKubeConfig {
  loadFromOptions(options: unknown): void;
  makeApiClient<T>(api: ApiClientConstructor<T>): T;
}

/**
 * Credentials for the test API server. Pass it to createClient/createManager; `exportConfig()` is the
 * kubeconfig file's text; `makeApiClient(CoreV1Api)` and `toClientNode()` need @kubernetes/client-node.
 */
export class EnvtestKubeConfig implements KubeConfigLike {
  readonly clusters: EnvtestCluster[];
  readonly users: EnvtestUser[];
  readonly contexts: EnvtestContext[];
  readonly currentContext: string;

  constructor(name: string, server: string, caPem: string, user: { certPem: string; keyPem: string }) {
    const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
    this.clusters = [{ name, server, caData: b64(caPem), skipTLSVerify: false }];
    this.users = [{ name, certData: b64(user.certPem), keyData: b64(user.keyPem) }];
    this.contexts = [{ name, cluster: name, user: name }];
    this.currentContext = name;
  }

  getCurrentCluster(): EnvtestCluster {
    return this.clusters[0]!;
  }

  getCurrentUser(): EnvtestUser {
    return this.users[0]!;
  }

  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    const pem = (b64: string): Buffer => Buffer.from(b64, 'base64');
    opts.ca = pem(this.clusters[0]!.caData);
    opts.cert = pem(this.users[0]!.certData);
    opts.key = pem(this.users[0]!.keyData);
  }

  /** The kubeconfig as JSON (valid YAML), as client-node's exportConfig() writes it. */
  exportConfig(): string {
    return JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: this.clusters.map((c) => ({ name: c.name, cluster: { server: c.server, 'certificate-authority-data': c.caData, 'insecure-skip-tls-verify': false } })),
      users: this.users.map((u) => ({ name: u.name, user: { 'client-certificate-data': u.certData, 'client-key-data': u.keyData } })),
      contexts: this.contexts.map((c) => ({ name: c.name, context: { cluster: c.cluster, user: c.user } })),
      'current-context': this.currentContext,
    });
  }

  /** client-node's API class for these credentials, e.g. `makeApiClient(CoreV1Api)` (needs @kubernetes/client-node). */
  makeApiClient<T>(api: ApiClientConstructor<T>): T {
    return this.toClientNode('makeApiClient').makeApiClient(api);
  }

  /**
   * The same credentials as client-node's KubeConfig, for its Watch, Informer or generated APIs (needs
   * @kubernetes/client-node). Typed loosely to keep client-node out of this module's types: cast to
   * `KubeConfig` from '@kubernetes/client-node'.
   */
  toClientNode(what = 'toClientNode'): ClientNodeKubeConfig {
    const { KubeConfig } = loadClientNode(what);
    const kc = new KubeConfig();
    kc.loadFromOptions({ clusters: this.clusters, users: this.users, contexts: this.contexts, currentContext: this.currentContext });
    return kc;
  }
}

function loadClientNode(what: string): { KubeConfig: new () => ClientNodeKubeConfig } {
  try {
    // require() of an ES module: synchronous, so makeApiClient keeps client-node's signature (Node >= 20.19).
    return createRequire(import.meta.url)('@kubernetes/client-node') as { KubeConfig: new () => ClientNodeKubeConfig };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') {
      throw new Error(`envtest: env.kubeConfig.${what}() needs @kubernetes/client-node: npm install --save-dev @kubernetes/client-node (createClient(env.kubeConfig) from @opgen/runtime needs nothing more)`);
    }
    if (code === 'ERR_REQUIRE_ESM') {
      throw new Error(`envtest: env.kubeConfig.${what}() loads @kubernetes/client-node synchronously, which needs Node.js >= 20.19 (this is ${process.version})`);
    }
    throw err;
  }
}
