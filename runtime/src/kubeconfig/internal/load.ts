// loadKubeConfig(): client-node's KubeConfig.loadFromDefault() without client-node.
//
// Where to look, in client-node's order (dist/config.js loadFromDefault, v1.4.0):
//   1. $KUBECONFIG, a path list: every file must exist (client-node throws for a missing one too);
//      merged as client-go merges them (first definition of a name wins, first current-context wins;
//      client-node instead throws on a name defined twice and lets the last current-context win).
//   2. ~/.kube/config ($HOME; on Windows client-node's own lookup, see below).
//   3. in-cluster, when the service-account token file exists.
//   4. client-node's last resort, http://localhost:8080 with no user; client-node then refuses every
//      request (plain HTTP without insecure-skip-tls-verify), and so does this, with a message that
//      says why.
//
// Deliberate differences from client-node, all client-go's behaviour:
//   - tokenFile (client-go's key; client-node reads `token-file` instead, once, untrimmed) is read on
//     every applyToHTTPSOptions and trimmed; `token-file` is accepted too. Relative tokenFile and exec
//     command paths (with a slash) resolve against the kubeconfig's folder; client-node resolves only
//     certificate-authority, client-certificate and client-key, and runs the others from the cwd.
//   - a context naming a user or cluster that does not exist is an error here; client-node quietly
//     sends requests without credentials (or finds no cluster).
//   - the cluster's CA, tls-server-name and insecure-skip-tls-verify apply even to a context without a
//     user (client-node applies none of the cluster's TLS settings then).
//   - http:// servers are allowed (client-node's agent refuses them unless insecure-skip-tls-verify).
//   - in-cluster is always https (client-node picks http for ports 80, 8080 and 8001 and then refuses
//     plain HTTP anyway) and needs KUBERNETES_SERVICE_HOST/PORT set.
//   - applyToHTTPSOptions sets no `agent`: the runtime's transport keeps a pooled agent of its own
//     (a new one when the certificates it is given change; client-certificate, client-key and
//     certificate-authority files are read again on every call, so a file replaced on disk counts),
//     and it (not this loader) tunnels through a cluster's proxy-url: HTTP CONNECT for https servers;
//     socks and https proxies, and proxies for http:// servers, are refused here with the file and
//     cluster (client-node supports those through socks-proxy-agent and hpagent). Without a proxy-url,
//     the transport uses HTTPS_PROXY/NO_PROXY as client-go does (client/internal/proxy-env.ts).
//
// Users with a legacy `auth-provider` (oidc, azure, gcp) are not reimplemented: for them this falls
// back to client-node's KubeConfig, loaded with loadFromDefault(), and the ~70 MB it costs is paid
// only then. So does Windows without a kubeconfig (client-node then asks WSL for one).
import { accessSync, existsSync, readFileSync } from 'node:fs';
import type * as https from 'node:https';
import { isIPv6 } from 'node:net';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { unsupportedProxy } from './proxy-support.js';
import { KubeConfigError, displayPath } from './errors.js';
import { ExecCredentialPlugin, credentialExpiresAt, credentialRejected, execApiVersions, type ExecApiVersion, type ExpiringOptions, type InteractiveMode } from './exec-credential.js';
import { readKubeConfigFiles, type MergedConfig, type Named, type RawCluster, type RawUser } from './files.js';

/**
 * The cluster fields the runtime reads: client-node's Cluster has the same shape (declared here so the
 * runtime's types need no @kubernetes/client-node, which operators need not install).
 */
export interface Cluster {
  readonly name: string;
  readonly server: string;
  readonly caData?: string;
  readonly caFile?: string;
  readonly tlsServerName?: string;
  readonly skipTLSVerify: boolean;
  readonly proxyUrl?: string;
}

/** What the runtime needs of a kubeconfig. client-node's KubeConfig is one. */
export interface KubeConfigLike {
  getCurrentCluster(): Cluster | null;
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}

export interface LoadKubeConfigOptions {
  /**
   * Folder with the pod's service-account token and ca.crt; default
   * /var/run/secrets/kubernetes.io/serviceaccount. For tests.
   */
  serviceAccountDir?: string;
  /**
   * How long an exec credential plugin may run without a terminal before it is killed; default 60 s
   * (defaultExecPluginTimeoutMs, where the figure is explained); 0: no limit, as client-go.
   */
  execPluginTimeoutMs?: number;
}

/** Where Kubernetes mounts a pod's service-account token, ca.crt and namespace. */
export const defaultServiceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The kubeconfig client-node's loadFromDefault() would load (see the top of this file). */
export async function loadKubeConfig(opts: LoadKubeConfigOptions = {}): Promise<KubeConfigLike> {
  const list = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (list.length > 0) return fromFiles(readKubeConfigFiles(list, 'listed in $KUBECONFIG'), opts);
  const home = homeDir();
  if (home) {
    const file = join(home, '.kube', 'config');
    if (existsSync(file)) return fromFiles(readKubeConfigFiles([file], 'the default kubeconfig'), opts);
  }
  if (process.platform === 'win32') return clientNodeKubeConfig();
  const saDir = opts.serviceAccountDir ?? defaultServiceAccountDir;
  if (existsSync(join(saDir, 'token'))) return inCluster(saDir);
  return new NoKubeConfig(saDir);
}

async function clientNodeKubeConfig(): Promise<KubeConfigLike> {
  // An optional peer dependency: only these kubeconfigs need it.
  let clientNode: typeof import('@kubernetes/client-node');
  try {
    clientNode = await import('@kubernetes/client-node');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new KubeConfigError(
      process.platform === 'win32'
        ? 'no kubeconfig found, and asking WSL for one needs @kubernetes/client-node; set KUBECONFIG, or npm install @kubernetes/client-node'
        : 'the kubeconfig\'s user has a legacy auth-provider, which the runtime reads through @kubernetes/client-node; npm install @kubernetes/client-node, or switch the user to an exec plugin',
    );
  }
  const { KubeConfig } = clientNode;
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}

// client-node's findHomeDir on Linux and macOS: $HOME when it is accessible.
function homeDir(): string | undefined {
  const home = process.env.HOME;
  if (!home) return undefined;
  try {
    accessSync(home);
    return home;
  } catch {
    return undefined;
  }
}

interface UserAuth {
  certFile?: string;
  certData?: Buffer;
  keyFile?: string;
  keyData?: Buffer;
  token?: string;
  tokenFile?: string;
  basic?: string;
  impersonate: Record<string, string | string[]>;
  exec?: ExecCredentialPlugin;
}

interface ClusterTls {
  caFile?: string;
  caData?: Buffer;
  skipTLSVerify: boolean;
  servername?: string;
}

/** A resolved context: what getCurrentCluster() answers and what applyToHTTPSOptions() applies. */
class LoadedKubeConfig implements KubeConfigLike {
  constructor(
    private readonly cluster: Cluster,
    private readonly tls: ClusterTls,
    private readonly auth: UserAuth,
    /** For the message when a file named by the kubeconfig has gone. */
    private readonly where: string,
  ) {}

  getCurrentCluster(): Cluster {
    return this.cluster;
  }

  /** The API server answered 401: the next applyToHTTPSOptions runs the exec plugin again. */
  [credentialRejected](): void {
    this.auth.exec?.forget();
  }

  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    const { tls, auth } = this;
    const headers = (opts.headers ??= {}) as Record<string, string | string[] | number | undefined>;
    if (tls.skipTLSVerify) opts.rejectUnauthorized = false;
    if (tls.servername) opts.servername = tls.servername;
    const ca = this.read(tls.caFile, 'certificate-authority') ?? tls.caData;
    if (ca) opts.ca = ca;
    const cert = this.read(auth.certFile, 'client-certificate') ?? auth.certData;
    if (cert) opts.cert = cert;
    const key = this.read(auth.keyFile, 'client-key') ?? auth.keyData;
    if (key) opts.key = key;
    Object.assign(headers, auth.impersonate);
    if (auth.exec) {
      const status = await auth.exec.credential();
      if (status.clientCertificateData) opts.cert = status.clientCertificateData;
      if (status.clientKeyData) opts.key = status.clientKeyData;
      if (status.token) headers.Authorization = `Bearer ${status.token}`;
      if (status.expirationTimestamp) (opts as ExpiringOptions)[credentialExpiresAt] = Date.parse(status.expirationTimestamp);
    }
    const token = auth.token ?? (auth.tokenFile ? this.read(auth.tokenFile, 'tokenFile')?.toString('utf8').trim() : undefined);
    if (token) headers.Authorization = `Bearer ${token}`;
    if (auth.basic) opts.auth = auth.basic;
  }

  private read(file: string | undefined, field: string): Buffer | undefined {
    if (!file) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      throw new KubeConfigError(`${this.where} names ${field} ${file}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
}

/** client-node's last resort (http://localhost:8080, no user), which no request can use. */
class NoKubeConfig implements KubeConfigLike {
  constructor(private readonly saDir: string) {}

  getCurrentCluster(): Cluster {
    return { name: 'cluster', server: 'http://localhost:8080', skipTLSVerify: false };
  }

  async applyToHTTPSOptions(): Promise<void> {
    throw new KubeConfigError(`no kubeconfig: $KUBECONFIG is not set, ~/.kube/config does not exist and there is no service-account token at ${this.saDir}/token; set KUBECONFIG or run in a pod`);
  }
}

function inCluster(saDir: string): KubeConfigLike {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new KubeConfigError(`in-cluster config: ${saDir}/token exists but KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set; run in a pod or set KUBECONFIG`);
  }
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  const caFile = join(saDir, 'ca.crt');
  return new LoadedKubeConfig(
    { name: 'inCluster', server, caFile, skipTLSVerify: false },
    { caFile, skipTLSVerify: false },
    // The token is projected and rotates: read it on every applyToHTTPSOptions.
    { tokenFile: join(saDir, 'token'), impersonate: {} },
    'the in-cluster config',
  );
}

async function fromFiles(config: MergedConfig, opts: LoadKubeConfigOptions): Promise<KubeConfigLike> {
  const where = config.files.map(displayPath).join(':');
  const current = config.currentContext;
  if (!current) {
    throw new KubeConfigError(`${where}: no current-context; set one with \`kubectl config use-context NAME\``);
  }
  const context = config.contexts.get(current.name);
  if (!context) {
    const known = [...config.contexts.keys()].join(', ') || 'none';
    throw new KubeConfigError(`${displayPath(current.file)}: current-context "${current.name}" names no context (contexts: ${known}); fix it with \`kubectl config use-context NAME\``);
  }
  const ctxFile = displayPath(context.file);
  if (!context.value.cluster) throw new KubeConfigError(`${ctxFile}: context "${context.name}" names no cluster; add contexts[].context.cluster`);
  const cluster = config.clusters.get(context.value.cluster);
  if (!cluster) throw new KubeConfigError(`${ctxFile}: context "${context.name}" names cluster "${context.value.cluster}", which no clusters[] entry defines; add it or fix the context`);
  let user: Named<RawUser> | undefined;
  if (context.value.user) {
    user = config.users.get(context.value.user);
    if (!user) throw new KubeConfigError(`${ctxFile}: context "${context.name}" names user "${context.value.user}", which no users[] entry defines; add it or fix the context`);
    if (user.value['auth-provider']) return clientNodeKubeConfig();
  }
  const { cluster: c, tls } = resolveCluster(cluster);
  const auth = user ? resolveUser(user, c, opts) : { impersonate: {} };
  return new LoadedKubeConfig(c, tls, auth, user ? `${displayPath(user.file)}: user "${user.name}"` : `${displayPath(cluster.file)}: cluster "${cluster.name}"`);
}

// Relative paths resolve against the folder of the file that named them (client-go's
// ResolveLocalPaths; client-node's makePathsAbsolute does the same for the three TLS files).
function resolvePath(file: string, path: string): string {
  return isAbsolute(path) ? path : resolve(dirname(file), path);
}

function mustExist(path: string, what: string): string {
  if (!existsSync(path)) throw new KubeConfigError(`${what} ${path}, which does not exist; fix the path`);
  return path;
}

function base64(data: string, what: string): Buffer {
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(data)) throw new KubeConfigError(`${what}, which is not base64; encode it with \`base64 -w0\``);
  return Buffer.from(data, 'base64');
}

function resolveCluster({ name, file, value }: Named<RawCluster>): { cluster: Cluster; tls: ClusterTls } {
  const at = `${displayPath(file)}: cluster "${name}"`;
  if (!value.server) throw new KubeConfigError(`${at} has no server; add clusters[].cluster.server (e.g. https://host:6443)`);
  let url: URL;
  try {
    url = new URL(value.server);
  } catch {
    throw new KubeConfigError(`${at} has server ${JSON.stringify(value.server)}, which is not a URL; write it as https://host:port`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new KubeConfigError(`${at} has server ${value.server}; only https:// (or http://) servers are supported`);
  const proxyUrl = value['proxy-url'] || undefined;
  const unsupported = proxyUrl ? unsupportedProxy(proxyUrl, value.server) : undefined;
  if (unsupported) throw new KubeConfigError(`${at} sets ${unsupported}; fix or remove proxy-url`);
  const caFile = value['certificate-authority'] ? mustExist(resolvePath(file, value['certificate-authority']), `${at} names certificate-authority`) : undefined;
  const caData = value['certificate-authority-data'] ? base64(value['certificate-authority-data'], `${at} has certificate-authority-data`) : undefined;
  const skipTLSVerify = value['insecure-skip-tls-verify'] === true;
  const servername = value['tls-server-name'] || undefined;
  const cluster: Cluster = {
    name,
    server: value.server.replace(/\/$/, ''),
    skipTLSVerify,
    ...(value['certificate-authority-data'] ? { caData: value['certificate-authority-data'] } : {}),
    ...(caFile ? { caFile } : {}),
    ...(servername ? { tlsServerName: servername } : {}),
    ...(proxyUrl ? { proxyUrl } : {}),
  };
  // A file wins over -data when both are set, as in client-node (bufferFromFileOrString).
  return { cluster, tls: { caFile, caData: caFile ? undefined : caData, skipTLSVerify, servername } };
}

function resolveUser({ name, file, value }: Named<RawUser>, cluster: Cluster, opts: LoadKubeConfigOptions): UserAuth {
  const at = `${displayPath(file)}: user "${name}"`;
  const fileField = (field: 'client-certificate' | 'client-key') =>
    value[field] ? mustExist(resolvePath(file, value[field]), `${at} names ${field}`) : undefined;
  const auth: UserAuth = { impersonate: {} };
  // A file wins over the matching -data field, as in client-node.
  auth.certFile = fileField('client-certificate');
  if (!auth.certFile && value['client-certificate-data']) auth.certData = base64(value['client-certificate-data'], `${at} has client-certificate-data`);
  auth.keyFile = fileField('client-key');
  if (!auth.keyFile && value['client-key-data']) auth.keyData = base64(value['client-key-data'], `${at} has client-key-data`);
  if (Boolean(auth.certFile || auth.certData) !== Boolean(auth.keyFile || auth.keyData)) {
    const has = auth.certFile || auth.certData ? 'a client certificate but no client-key' : 'a client-key but no client certificate';
    throw new KubeConfigError(`${at} has ${has}; set both client-certificate(-data) and client-key(-data)`);
  }
  if (value.token) auth.token = value.token;
  const tokenFile = value.tokenFile ?? value['token-file'];
  if (!auth.token && tokenFile) auth.tokenFile = mustExist(resolvePath(file, tokenFile), `${at} names tokenFile`);
  if (value.username) auth.basic = `${value.username}:${value.password ?? ''}`;
  if (value.as) auth.impersonate['Impersonate-User'] = value.as;
  if (value['as-groups']?.length) auth.impersonate['Impersonate-Group'] = value['as-groups'];
  if (value['as-uid']) auth.impersonate['Impersonate-Uid'] = value['as-uid'];
  if (value.exec) auth.exec = execPlugin(at, file, value.exec, cluster, opts.execPluginTimeoutMs);
  return auth;
}

function execPlugin(at: string, file: string, exec: NonNullable<RawUser['exec']>, cluster: Cluster, timeoutMs: number | undefined): ExecCredentialPlugin {
  if (!exec.command) throw new KubeConfigError(`${at} has exec without a command; add users[].user.exec.command`);
  const apiVersion = exec.apiVersion as ExecApiVersion;
  if (!execApiVersions.includes(apiVersion)) {
    throw new KubeConfigError(`${at} has exec apiVersion ${JSON.stringify(exec.apiVersion ?? '')}; use client.authentication.k8s.io/v1 (or v1beta1)`);
  }
  let mode = exec.interactiveMode as InteractiveMode | undefined;
  if (mode === undefined) {
    // client-go: v1 must say; v1beta1 defaults to IfAvailable.
    if (apiVersion === 'client.authentication.k8s.io/v1') throw new KubeConfigError(`${at} has exec apiVersion client.authentication.k8s.io/v1 without interactiveMode; add interactiveMode: Never (or IfAvailable)`);
    mode = 'IfAvailable';
  }
  if (!['Never', 'IfAvailable', 'Always'].includes(mode)) throw new KubeConfigError(`${at} has exec interactiveMode ${JSON.stringify(mode)}; use Never, IfAvailable or Always`);
  const env: Record<string, string> = {};
  for (const e of exec.env ?? []) if (e?.name) env[e.name] = e.value ?? '';
  // client-go resolves a command with a path separator against the kubeconfig's folder; a bare name
  // is looked up on PATH. (client-node runs it as written, so relative to the cwd.)
  const command = exec.command.includes('/') ? resolvePath(file, exec.command) : exec.command;
  return new ExecCredentialPlugin({
    command,
    args: exec.args ?? [],
    env,
    apiVersion,
    interactiveMode: mode,
    installHint: exec.installHint,
    cluster: exec.provideClusterInfo ? clusterInfo(cluster) : undefined,
    where: at.replace(/^(.*): (user ".*")$/, '$2 in $1'),
    timeoutMs,
  });
}

// KUBERNETES_EXEC_INFO's spec.cluster (client.authentication.k8s.io Cluster).
function clusterInfo(cluster: Cluster): Record<string, unknown> {
  const ca = cluster.caData ?? (cluster.caFile ? readFileSync(cluster.caFile).toString('base64') : undefined);
  return {
    server: cluster.server,
    ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
    ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(ca ? { 'certificate-authority-data': ca } : {}),
  };
}
