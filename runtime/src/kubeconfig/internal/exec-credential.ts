// client-go's exec credential plugins (k8s.io/client-go/plugin/pkg/client/auth/exec): what EKS
// (`aws eks get-token`), GKE (`gke-gcloud-auth-plugin`) and AKS (`kubelogin`) kubeconfigs use.
import { spawn } from 'node:child_process';
import { setTimer } from '../../internal/timers/index.js';
import { KubeConfigError, oneLine } from './errors.js';

export const execApiVersions = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;
export type ExecApiVersion = (typeof execApiVersions)[number];
export type InteractiveMode = 'Never' | 'IfAvailable' | 'Always';

export interface ExecSpec {
  /** Already resolved against the kubeconfig's folder when it names a relative path with a slash. */
  command: string;
  args: string[];
  env: Record<string, string>;
  apiVersion: ExecApiVersion;
  interactiveMode: InteractiveMode;
  installHint?: string;
  /** spec.cluster of KUBERNETES_EXEC_INFO when the kubeconfig sets provideClusterInfo. */
  cluster?: Record<string, unknown>;
  /** For messages: `user "dev" in ~/.kube/config`. */
  where: string;
  /** See defaultExecPluginTimeoutMs; 0: none. */
  timeoutMs?: number;
}

/**
 * How long a plugin that runs without a terminal may take before it is killed. client-go sets no limit
 * (it runs the plugin with exec.Command, not tied to any request: kubernetes/kubernetes#108849 was
 * declined in 2025 so that a slow first login is not killed with the request that started it). The
 * runtime keeps that separation: a request stops waiting for credentials at its own signal and
 * deadline, the plugin keeps running and its answer serves the next request. But an operator has no
 * one to log in, and a plugin hung for good would leave every later request waiting on it, so a
 * plugin without a terminal is killed after 60 s, the default request deadline: an answer later than
 * that reaches no request anyway, and the next request runs the plugin afresh. With a terminal
 * (interactiveMode IfAvailable or Always and a TTY) there is no limit, as in client-go.
 */
export const defaultExecPluginTimeoutMs = 60_000;

/**
 * Set by loadKubeConfig()'s applyToHTTPSOptions on the options it fills in when an exec plugin's
 * credential has an expirationTimestamp (ms since the epoch): the runtime's transport reads the
 * credentials again then instead of up to a minute later, so a rotated client certificate is used from
 * the moment the plugin hands it out. Not part of client-node's options; anything else ignores it.
 */
export const credentialExpiresAt: unique symbol = Symbol('opgen.credentialExpiresAt');
export interface ExpiringOptions {
  [credentialExpiresAt]?: number;
}

/**
 * A method of loadKubeConfig()'s KubeConfig, called by the runtime's transport when the API server
 * answered 401 Unauthorized: an exec plugin's cached credential is dropped, so the retry runs the
 * plugin again (client-go's exec round-tripper does the same). Other KubeConfigs lack it.
 */
export const credentialRejected: unique symbol = Symbol('opgen.credentialRejected');
export interface RejectableCredentials {
  [credentialRejected]?(): void;
}

export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

/**
 * Runs the plugin when a credential is needed and keeps its answer until status.expirationTimestamp.
 * An answer without an expiry is not kept (client-node does the same; client-go keeps it until a 401):
 * the runtime's transport asks for credentials at most once a minute and after a 401, so the plugin
 * then runs at most once a minute.
 */
export class ExecCredentialPlugin {
  private cached?: { status: ExecCredentialStatus; expires: number };
  private running?: Promise<ExecCredentialStatus>;

  constructor(
    readonly spec: ExecSpec,
    private readonly now: () => number = Date.now,
  ) {}

  /** Drops the cached credential (the server rejected it); the next credential() runs the plugin. */
  forget(): void {
    this.cached = undefined;
  }

  credential(): Promise<ExecCredentialStatus> {
    if (this.cached && this.now() < this.cached.expires) return Promise.resolve(this.cached.status);
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(): Promise<ExecCredentialStatus> {
    const { spec } = this;
    // No TTY in an operator's pod: Never and IfAvailable then both run the plugin without stdin;
    // Always cannot be satisfied (client-go fails the same way).
    const terminal = process.stdin.isTTY === true;
    if (spec.interactiveMode === 'Always' && !terminal) {
      throw new KubeConfigError(`exec plugin "${spec.command}" for ${spec.where} has interactiveMode Always, but standard input is not a terminal; use a plugin mode that needs no prompt (interactiveMode: Never or IfAvailable)`);
    }
    const interactive = terminal && spec.interactiveMode !== 'Never';
    const execInfo = {
      apiVersion: spec.apiVersion,
      kind: 'ExecCredential',
      spec: { interactive, ...(spec.cluster ? { cluster: spec.cluster } : {}) },
    };
    const timeoutMs = interactive ? 0 : (spec.timeoutMs ?? defaultExecPluginTimeoutMs);
    const { code, stdout, stderr, error, timedOut } = await new Promise<{ code: number | null; stdout: string; stderr: string; error?: NodeJS.ErrnoException; timedOut?: boolean }>(
      (resolve) => {
        let out = '';
        let err = '';
        const child = spawn(spec.command, spec.args, {
          env: { ...process.env, ...spec.env, KUBERNETES_EXEC_INFO: JSON.stringify(execInfo) },
          stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'],
        });
        // Killed, and given up on at once: a child of the plugin may hold its stdout open after it died.
        const timer =
          timeoutMs > 0
            ? setTimer(() => {
                child.kill('SIGKILL');
                child.stdout.destroy();
                child.stderr.destroy();
                resolve({ code: null, stdout: out, stderr: err, timedOut: true });
              }, timeoutMs)
            : undefined;
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
        child.on('error', (e: NodeJS.ErrnoException) => {
          timer?.clear();
          resolve({ code: null, stdout: out, stderr: err, error: e });
        });
        child.on('close', (c) => {
          timer?.clear();
          resolve({ code: c, stdout: out, stderr: err });
        });
      },
    );
    if (timedOut) {
      throw new KubeConfigError(`exec plugin "${spec.command}" for ${spec.where} did not answer within ${timeoutMs} ms and was killed; make it answer without a terminal, or raise loadKubeConfig's execPluginTimeoutMs`);
    }
    if (error) {
      if (error.code === 'ENOENT') {
        const hint = spec.installHint ? ` (${oneLine(spec.installHint)})` : '';
        throw new KubeConfigError(`exec plugin "${spec.command}" for ${spec.where} was not found${hint}; install it or fix users[].user.exec.command`);
      }
      throw new KubeConfigError(`exec plugin "${spec.command}" for ${spec.where} could not start (${error.code ?? error.message}); fix users[].user.exec.command`);
    }
    if (code !== 0) {
      const said = oneLine(stderr);
      throw new KubeConfigError(`exec plugin "${spec.command}" for ${spec.where} exited with ${code ?? 'a signal'}${said ? `: ${said}` : ''}`);
    }
    const status = this.parse(stdout);
    const expires = status.expirationTimestamp ? Date.parse(status.expirationTimestamp) : NaN;
    this.cached = Number.isNaN(expires) ? undefined : { status, expires };
    return status;
  }

  private parse(stdout: string): ExecCredentialStatus {
    const { spec } = this;
    const bad = (why: string) => new KubeConfigError(`exec plugin "${spec.command}" for ${spec.where} printed ${why}; it must print an ExecCredential (${spec.apiVersion}) with status.token or status.clientCertificateData and clientKeyData`);
    let cred: { apiVersion?: string; kind?: string; status?: ExecCredentialStatus };
    try {
      cred = JSON.parse(stdout) as typeof cred;
    } catch {
      throw bad('no JSON');
    }
    if (cred?.kind !== 'ExecCredential') throw bad(`kind ${JSON.stringify(cred?.kind)}`);
    if (cred.apiVersion !== spec.apiVersion) throw bad(`apiVersion ${JSON.stringify(cred.apiVersion)} where the kubeconfig asks for ${spec.apiVersion}`);
    const status = cred.status ?? {};
    if (Boolean(status.clientCertificateData) !== Boolean(status.clientKeyData)) throw bad('only one of clientCertificateData and clientKeyData');
    if (!status.token && !status.clientCertificateData) throw bad('no credential');
    if (status.expirationTimestamp && Number.isNaN(Date.parse(status.expirationTimestamp))) throw bad(`expirationTimestamp ${JSON.stringify(status.expirationTimestamp)}`);
    return status;
  }
}
