// The self certificate provider (opgen's take on open-policy-agent/cert-controller): every replica
// watches one Secret and serves the certificate in it, swapped in memory as soon as the Secret changes
// (no volume, so no kubelet sync delay and nothing to mount before the Secret exists). Every replica
// also checks it: when it is missing, invalid or due, the replica writes a new one with a conditional
// write (create, or update at the resourceVersion it read), so when two replicas race exactly one
// wins and the other, refused with 409, reads the winner's. That needs no leader, so it works without
// leader election and with sharding (where there is none). The CA bundle is kept in the configured
// webhook configurations and conversion CRDs, and put back when someone else overwrites it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SecureContextOptions } from 'node:tls';
import { Secret } from '../../api/builtins.js';
import type { KubeObject } from '../../api/types.js';
import { Informer } from '../../cache/informer.js';
import { ApiClient } from '../../client/client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../client/errors.js';
import { setTimer, type Timer } from '../../internal/timers/index.js';
import { defaultServiceAccountDir, type KubeConfigLike } from '../../kubeconfig/index.js';
import type { Logger } from '../../log/index.js';
import { Transport } from '../../transport/index.js';
import type { CertificateSource } from '../../internal/serving/http-server.js';
import { due, keys, nextRenewal, renew, servingPair, type CertData, type ServingPair } from './certificates.js';
import { injected, targetKinds, type Target } from './inject.js';
import { resolveOptions, type ResolvedOptions, type SelfCertificateOptions } from './options.js';

const requestTimeoutMs = 15_000;
const fieldManager = 'opgen-cert-provider';

function podNamespace(): string {
  try {
    return readFileSync(join(defaultServiceAccountDir, 'namespace'), 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

function decode(secret: Secret | undefined): CertData {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(secret?.data ?? {})) data[k] = Buffer.from(v, 'base64').toString('utf8');
  return data;
}

function encode(data: Required<CertData>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
}

/** What the provider did, for logs and tests. */
export interface SelfCertificateStats {
  /** Secret writes that the API server accepted (create or update). */
  secretWrites: number;
  /** Secret writes refused because another writer got there first (409). */
  conflicts: number;
  /** Webhook configurations and CRDs given the CA bundle. */
  injections: number;
  /** Serving pairs taken into use from the Secret. */
  reloads: number;
}

export class SelfCertificateProvider implements CertificateSource {
  readonly options: ResolvedOptions;
  readonly stats: SelfCertificateStats = { secretWrites: 0, conflicts: 0, injections: 0, reloads: 0 };
  private pair?: ServingPair;
  private readonly listeners: ((next: SecureContextOptions) => void)[] = [];
  private readonly client: ApiClient;
  private readonly transport: Transport;
  private secret?: Informer<Secret>;
  private targets: { target: Target; informer: Informer<KubeObject> }[] = [];
  private signal?: AbortSignal;
  private running = false;
  private again = false;
  private timer?: Timer;
  private failures = 0;
  /** The resourceVersion of our last write, until the Secret's watch has brought it (then undefined). */
  private written?: { resourceVersion?: string; at: number };
  private readonly firstPair: Promise<void>;
  private resolveFirst!: () => void;

  /** Checks the options (one line naming a bad one). */
  constructor(
    kubeConfig: KubeConfigLike,
    options: SelfCertificateOptions,
    private readonly log: Logger,
  ) {
    this.options = resolveOptions(options, podNamespace);
    this.transport = new Transport(kubeConfig, { requestTimeoutMs });
    this.client = new ApiClient(this.transport, fieldManager);
    this.firstPair = new Promise((resolve) => (this.resolveFirst = resolve));
  }

  /** The names the serving certificate is for: <service>.<namespace>.svc first (its common name). */
  get hosts(): string[] {
    const { serviceName, namespace, extraHosts } = this.options;
    return [...new Set([`${serviceName}.${namespace}.svc`, `${serviceName}.${namespace}.svc.cluster.local`, ...extraHosts])];
  }

  current(): SecureContextOptions {
    if (!this.pair) throw new Error('no serving certificate yet');
    return { cert: this.pair.cert, key: this.pair.key };
  }

  onChange(listener: (next: SecureContextOptions) => void): void {
    this.listeners.push(listener);
  }

  /** The serial number of the certificate being served (hex), if any. */
  get serialNumber(): string | undefined {
    return this.pair?.serialNumber;
  }

  /** Readiness: throws unless a certificate that has not expired is being served. */
  check(): void {
    if (!this.pair) throw new Error(`no serving certificate yet from Secret ${this.options.namespace}/${this.options.secretName}`);
    if (this.pair.notAfter <= Date.now()) throw new Error(`the serving certificate from Secret ${this.options.namespace}/${this.options.secretName} expired at ${new Date(this.pair.notAfter).toISOString()}`);
  }

  /**
   * Watches the Secret and the injection targets until `signal` aborts; resolves once a valid serving
   * certificate is loaded. `conversionCrds` is used when the options name none.
   */
  async start(signal: AbortSignal, served: { conversionCrds: string[] } = { conversionCrds: [] }): Promise<void> {
    this.signal = signal;
    const o = this.options;
    const log = this.log;
    const targets: Target[] = [
      ...o.validatingWebhookConfigurations.map((name) => ({ kind: 'validating' as const, name })),
      ...o.mutatingWebhookConfigurations.map((name) => ({ kind: 'mutating' as const, name })),
      ...(o.conversionCrds ?? served.conversionCrds).map((name) => ({ kind: 'crd' as const, name })),
    ];
    const kick = { onAdd: () => this.kick(), onUpdate: () => this.kick(), onDelete: () => this.kick() };
    this.secret = new Informer(this.transport, Secret, { namespaces: [o.namespace], fieldSelector: `metadata.name=${o.secretName}`, log });
    this.secret.addEventHandler({
      onAdd: (s) => (this.load(s), this.kick()),
      onUpdate: (_, s) => (this.load(s), this.kick()),
      onDelete: () => this.kick(),
    });
    this.targets = targets.map((target) => {
      const informer = new Informer<KubeObject>(this.transport, targetKinds[target.kind] as never, { fieldSelector: `metadata.name=${target.name}`, log });
      informer.addEventHandler(kick);
      return { target, informer };
    });
    const informers = [this.secret, ...this.targets.map((t) => t.informer)];
    for (const i of informers) void i.start(signal).catch((err) => log.error('certificate provider: watch stopped', err));
    signal.addEventListener('abort', () => (this.timer?.clear(), this.transport.destroy(), this.resolveFirst()), { once: true });
    log.info('self certificate provider started', { secret: `${o.namespace}/${o.secretName}`, hosts: this.hosts, targets: targets.map((t) => `${t.kind}/${t.name}`) });
    await Promise.all(informers.map((i) => i.waitForSync(signal)));
    this.kick();
    await this.firstPair;
  }

  /** Takes the Secret's pair into use when it loads and differs from the one served. */
  private load(secret: Secret): void {
    const pair = servingPair(decode(secret));
    if (!pair || (this.pair && pair.cert === this.pair.cert && pair.key === this.pair.key)) return;
    const previous = this.pair?.serialNumber;
    this.pair = pair;
    this.stats.reloads++;
    for (const l of this.listeners) l(this.current());
    this.log.info('serving certificate loaded from the Secret', { serial: pair.serialNumber, previous, notAfter: new Date(pair.notAfter).toISOString() });
    if (pair.notAfter > Date.now()) this.resolveFirst();
  }

  /** Runs reconcile once, or once more after the one in progress. */
  private kick(): void {
    if (this.signal?.aborted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      this.timer?.clear();
      let nextMs: number;
      try {
        nextMs = await this.reconcile();
        this.failures = 0;
      } catch (err) {
        if (this.signal?.aborted) break;
        this.failures++;
        nextMs = Math.min(1000 * 2 ** (this.failures - 1), 60_000);
        this.log.error('could not keep the webhook serving certificate; retrying', err, { retryInMs: nextMs });
      }
      if (!this.signal?.aborted) this.timer = setTimer(() => this.kick(), nextMs).unref();
    } while (this.again && !this.signal?.aborted);
    this.running = false;
  }

  /** One pass: the Secret written if due, then the bundle injected; returns ms until the next check. */
  private async reconcile(): Promise<number> {
    const o = this.options;
    const current = this.secret!.store.get(o.namespace, o.secretName);
    // Judging the version from before our own write would only lose a race against ourselves.
    if (this.written && current?.metadata?.resourceVersion !== this.written.resourceVersion && Date.now() - this.written.at < 5_000) return 200;
    this.written = undefined;
    const data = decode(current);
    const what = due(data, this.hosts, o);
    if (what) {
      const next = renew(data, what, this.hosts, o, `${o.serviceName}-ca`);
      // A new CA goes into the bundles before any certificate it signed is served.
      if (what === 'ca') await this.inject(next[keys.caCert]);
      if (await this.write(current, next, what)) this.load({ data: encode(next) } as Secret);
      // Either way the Secret's watch brings what is now stored; look again then.
      return 1000;
    }
    await this.inject(data[keys.caCert]!);
    const renewal = nextRenewal(data, o) ?? Date.now();
    return Math.max(100, Math.min(o.checkIntervalMs, renewal - Date.now()));
  }

  /** Creates or updates the Secret at the version read; false when another writer got there first. */
  private async write(current: Secret | undefined, data: Required<CertData>, what: 'ca' | 'cert'): Promise<boolean> {
    const o = this.options;
    const body: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { ...(current?.metadata ?? {}), name: o.secretName, namespace: o.namespace },
      type: current?.type ?? 'kubernetes.io/tls',
      data: { ...(current?.data ?? {}), ...encode(data) },
    };
    try {
      const written = current ? await this.client.update(Secret, body) : await this.client.create(Secret, body);
      this.stats.secretWrites++;
      this.written = { resourceVersion: written.metadata?.resourceVersion, at: Date.now() };
      this.log.info(what === 'ca' ? 'wrote a new CA and serving certificate to the Secret' : 'wrote a new serving certificate to the Secret', {
        secret: `${o.namespace}/${o.secretName}`,
        resourceVersion: written.metadata?.resourceVersion,
        serial: servingPair(data)?.serialNumber,
      });
      return true;
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) {
        this.stats.conflicts++;
        this.log.info('another replica wrote the certificate Secret first; using theirs', { secret: `${o.namespace}/${o.secretName}` });
        return false;
      }
      throw err;
    }
  }

  /** Puts `bundlePem` where a bundle that will do is missing (update at the version read). */
  private async inject(bundlePem: string): Promise<void> {
    for (const { target, informer } of this.targets) {
      const obj = informer.store.get(undefined, target.name);
      if (!obj) continue; // not installed (yet): its watch kicks us when it appears
      const next = injected(target.kind, obj as never, bundlePem);
      if (!next) continue;
      try {
        await this.client.update(targetKinds[target.kind] as never, next);
        this.stats.injections++;
        this.log.info('injected the CA bundle', { kind: targetKinds[target.kind].kind, name: target.name });
      } catch (err) {
        // A newer version is on its way through the watch, which kicks another pass.
        if (isConflict(err) || isNotFound(err)) continue;
        throw err;
      }
    }
  }
}
