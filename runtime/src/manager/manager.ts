// The manager owns what every controller shares (cache, clients, metrics, probes, leader election)
// and runs it all until a signal asks it to stop, then shuts down in order: stop taking work, let
// in-flight reconciles finish within the grace period, release the lease, stop the caches.
// Lost leadership is different (controller-runtime sets its shutdown timeout to zero then): another
// replica may already be writing, so in-flight reconciles are aborted at once, the manager's client
// refuses every further request, and the lease, no longer ours, is left alone. A drain that times
// out is treated the same way: its reconciles are abandoned, not awaited, so the lease is kept until
// it expires rather than handed to a successor that would overlap with them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResourceKind } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import { Cache, stripManagedFields } from '../cache/cache.js';
import { ApiClient, type Client, type Reader } from '../client/client.js';
import { Transport } from '../transport/index.js';
import { Builder, type ControllerBuilder, type ControllerHost, type WatchOptions } from '../controller/builder.js';
import type { Controller, ControllerDefaults } from '../controller/controller.js';
import { createEventRecorder, type EventRecorder } from '../events/index.js';
import { startProbeServer, type Check } from '../healthz/index.js';
import { createLogger, type Logger } from '../log/index.js';
import { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { startMetricsServer } from '../metrics/server/server.js';
import { Observability } from './observability.js';
import type { Tracer } from '../tracing/tracer.js';
import { loadKubeConfig, type KubeConfigLike } from '../kubeconfig/index.js';
import { defaultServiceAccountDir } from '../kubeconfig/index.js';
import { WebhookServer } from '../webhook/server.js';
import { Sharding, type ShardingOptions } from '../sharding/sharding.js';
import type { ManagerWebhookOptions } from '../webhook/manager-options.js';
import { LocalDevelopment } from '../webhook/internal/local-development.js';
import { DelegatingClient } from './delegating-client.js';
import { Leadership } from './leadership.js';
import { LeaderElectionLostError } from '../leaderelection/errors.js';
import { ShutdownTimeoutError } from './errors.js';
import { HardStop, RunGroup, settleWithin, StopRequest } from './lifecycle.js';
import type { Runnable } from './runnable.js';
import { versionSkewWarning, type ServerVersion } from './version-skew.js';
import type { Reconciler } from '../reconcile/index.js';

export type { Runnable } from './runnable.js';

export interface ManagerOptions {
  /**
   * Default: loadKubeConfig() ($KUBECONFIG, ~/.kube/config, else in-cluster: client-node's
   * loadFromDefault() order, without loading client-node). client-node's KubeConfig fits too.
   */
  kubeConfig?: KubeConfigLike;
  /** ':8080' style; '0' disables; default '0'. */
  metricsBindAddress?: string;
  /** ':8081' style; '0' disables; default '0'. */
  healthProbeBindAddress?: string;
  /** `--metrics-secure`: HTTPS, authn by TokenReview, authz by SubjectAccessReview (get /metrics); default false (plain HTTP). */
  metricsSecure?: boolean;
  /** `--metrics-cert-path`: folder with the metrics tls.crt/tls.key (reloaded on change); default self-signed. */
  metricsCertPath?: string;
  /** The webhook server (started when a webhook is registered through webhookFor or webhookServer.register). */
  webhook?: ManagerWebhookOptions;
  leaderElection?: boolean;
  /**
   * With leader election: a standby replica fills its caches (list and watch every kind the controllers
   * use) but queues nothing, so on becoming leader it reconciles from memory without a full list
   * (controller-runtime's EnableWarmup). Default false: a standby lists nothing until it leads, except
   * what is read through its cache (webhooks), which spares the API server and the standby's memory.
   */
  warmup?: boolean;
  /** Name of the Lease; required with leaderElection. */
  leaderElectionID?: string;
  /** Default: the pod's namespace in-cluster, else 'default'. */
  leaderElectionNamespace?: string;
  /** Lease timings; defaults 15 s / 10 s / 2 s as controller-runtime. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /**
   * Restrict caches to these namespaces; default (undefined or empty) all. Scaffolded projects pass
   * watchNamespaces(), i.e. WATCH_NAMESPACE split at commas. Leader election is not affected: its Lease
   * stays in leaderElectionNamespace.
   */
  namespaces?: string[];
  /** How long in-flight reconciles may run after a stop is asked for; default 30 s. */
  gracefulShutdownTimeoutMs?: number;
  logger?: Logger;
  /** Inject a metrics registry (e.g. to share one); default a fresh one. */
  metrics?: RuntimeMetrics;
  /**
   * Spans of reconciles and their API calls (docs/observability.md). Default: from the OTEL_* variables
   * (off unless OTEL_TRACES_EXPORTER=otlp or an OTLP endpoint is set); null: off.
   */
  tracer?: Tracer | null;
  /**
   * Record an Event on an object each time one of its conditions transitions (docs/observability.md);
   * default true. The condition metrics are kept either way.
   */
  conditionEvents?: boolean;
  /**
   * Applied to every object before the cache stores it. Default stripManagedFields: reads from the
   * cache (manager.client) then come without metadata.managedFields, which are often the largest part
   * of an object and which no write needs (apply and update leave the server's managedFields alone
   * when the request carries none). A function of your own replaces the default (wrap
   * stripManagedFields to keep the saving); null caches objects exactly as the server sends them.
   */
  cacheTransform?: ((obj: KubeObject) => KubeObject) | null;
  /** How often discovery is asked whether the kind of an optional watch is served yet (or still); default 10 s. */
  servedKindsPollMs?: number;
  /** How often every cached object is reconciled again even without a change; default 10 hours, 0 disables. */
  syncPeriodMs?: number;
  /**
   * What every controller of this manager starts from (controller-runtime's config.Controller);
   * `controllerFor(...).withOptions()` overrides it per controller: usePriorityQueue (default true),
   * reconciliationTimeoutMs (default 0, no limit).
   */
  controller?: ControllerDefaults;
  /** Field manager for the manager's client writes; default 'opgen-manager'. */
  fieldManager?: string;
  /**
   * Deadline of every API request the manager's client, cache lists and event recorder make, unless
   * the call names its own (timeoutMs); default 60 s; 0 disables it. Watches have none.
   */
  requestTimeoutMs?: number;
  /**
   * Horizontal scale-out (docs/sharding.md): every replica reconciles its share of each controller's
   * kind, held through a shard Lease of its own. Off by default (one active replica).
   */
  sharding?: ShardingOptions | boolean;
}

export interface Manager {
  readonly client: Client;
  readonly apiReader: Reader;
  readonly kubeConfig: KubeConfigLike;
  readonly log: Logger;
  readonly cache: Cache;
  readonly metrics: RuntimeMetrics;
  /** Serves admission and conversion webhooks on every replica (no leader election); see webhookFor(). */
  readonly webhookServer: WebhookServer;
  eventRecorder(name: string): EventRecorder;
  controllerFor<T extends KubeObject>(kind: ResourceKind<T>, opts?: WatchOptions): ControllerBuilder<T>;
  add(runnable: Runnable): void;
  addHealthzCheck(name: string, check: Check): void;
  addReadyzCheck(name: string, check: Check): void;
  /**
   * Resolves after a graceful shutdown; rejects when a runnable failed, the lease was lost or draining
   * timed out. After a rejection the process should exit non-zero (the scaffolded main does), so that
   * a replica that lost its lease restarts as a candidate.
   */
  start(signal: AbortSignal): Promise<void>;
  /** The ports actually bound once start() is under way (useful with ':0'). */
  readonly ports: { metrics?: number; healthProbe?: number; webhook?: number };
}

export async function createManager(opts: ManagerOptions = {}): Promise<Manager> {
  const kubeConfig = opts.kubeConfig ?? (await loadKubeConfig());
  if (opts.leaderElection && !opts.leaderElectionID) {
    throw new Error('leaderElection needs leaderElectionID (the name of the Lease, e.g. "abc123.example.com")');
  }
  return new ControllerManager(kubeConfig, opts);
}

const serviceAccountNamespaceFile = join(defaultServiceAccountDir, 'namespace');

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync(serviceAccountNamespaceFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

class ControllerManager implements Manager, ControllerHost {
  readonly client: Client;
  readonly apiReader: Reader;
  readonly log: Logger;
  readonly cache: Cache;
  readonly metrics: RuntimeMetrics;
  readonly webhookServer: WebhookServer;
  readonly ports: { metrics?: number; healthProbe?: number; webhook?: number } = {};
  readonly tracer?: Tracer;
  private readonly observability: Observability;
  private readonly transport: Transport;
  private readonly api: ApiClient;
  private readonly stopHard = new HardStop();
  private readonly localDevelopment: LocalDevelopment;
  private readonly runnables: Runnable[] = [];
  private readonly healthz = new Map<string, Check>();
  private readonly readyz = new Map<string, Check>();
  private readonly pendingEvents = new Set<Promise<unknown>>();
  private readonly controllerNames = new Set<string>();
  private startRunnable?: (r: Runnable) => void;
  private started = false;
  /** The leadership fence of the running start() (see TransportOptions.guard). */
  private leaderGuard: () => Error | undefined = () => undefined;
  private readonly sharding?: Sharding;

  constructor(
    readonly kubeConfig: KubeConfigLike,
    private readonly opts: ManagerOptions,
  ) {
    this.log = opts.logger ?? createLogger();
    this.metrics = opts.metrics ?? new RuntimeMetrics();
    if (opts.sharding) {
      const defaultNamespace = opts.leaderElectionNamespace ?? inClusterNamespace() ?? 'default';
      this.sharding = new Sharding(opts.sharding === true ? {} : opts.sharding, { kubeConfig, log: this.log, metrics: this.metrics, defaultName: opts.leaderElectionID ?? 'opgen', defaultNamespace, leaderElection: opts.leaderElection === true, namespaces: opts.namespaces });
    }
    this.observability = new Observability({ metrics: this.metrics, log: this.log, tracer: opts.tracer, conditionEvents: opts.conditionEvents });
    this.tracer = this.observability.tracer;
    // The hard stop fences every request of the manager's client, cache and event recorder: aborted
    // in flight, refused afterwards.
    this.transport = new Transport(kubeConfig, { requestTimeoutMs: opts.requestTimeoutMs, stop: this.stopHard.signal, observer: this.observability.requestObserver, guard: () => this.leaderGuard() ?? this.sharding?.guard() });
    this.api = new ApiClient(this.transport, opts.fieldManager ?? 'opgen-manager');
    this.cache = new Cache(this.transport, {
      namespaces: opts.namespaces,
      transform: opts.cacheTransform === undefined ? stripManagedFields : (opts.cacheTransform ?? undefined),
      resyncPeriodMs: opts.syncPeriodMs ?? 10 * 60 * 60 * 1000,
      servedKindsPollMs: opts.servedKindsPollMs,
      log: this.log.child({ logger: 'cache' }),
      shardFor: this.sharding && ((kind) => this.sharding!.shardFor(kind)),
    });
    this.sharding?.attach(this.cache, this.transport);
    // Label mode's sharder, on the leader (it ends at once in the other modes).
    if (this.sharding) this.add(this.sharding.sharderRunnable());
    this.client = new DelegatingClient(this.cache, this.api);
    this.apiReader = this.api;
    // Condition transitions of the kinds the controllers reconcile become Events and series (leader only).
    this.add(this.observability.conditions((kind) => this.cache.informerFor(kind), (name) => this.eventRecorder(name)));
    this.localDevelopment = new LocalDevelopment(kubeConfig, opts.webhook ?? {}, this.log.child({ logger: 'webhook' }));
    this.webhookServer = new WebhookServer({ ...this.localDevelopment.serverOptions(), metrics: this.metrics });
  }

  get watchedNamespaces(): readonly string[] | undefined {
    return this.opts.namespaces && this.opts.namespaces.length > 0 ? this.opts.namespaces : undefined;
  }

  get controllerDefaults(): ControllerDefaults | undefined {
    return this.opts.controller;
  }

  /** The cache's resync period (its default, 10 hours, when syncPeriodMs is unset); controllers spread each resync over a tenth of it. */
  get syncPeriodMs(): number {
    return this.opts.syncPeriodMs ?? 10 * 60 * 60 * 1000;
  }

  get hardStop(): AbortSignal {
    return this.stopHard.signal;
  }

  eventRecorder(name: string): EventRecorder {
    return this.observability.recorder({
      name,
      writer: this.api,
      log: this.log.child({ logger: 'events' }),
      track: (p) => {
        this.pendingEvents.add(p);
        void p.finally(() => this.pendingEvents.delete(p));
      },
    });
  }

  controllerFor<T extends KubeObject>(kind: ResourceKind<T>, opts?: WatchOptions): ControllerBuilder<T> {
    this.observability.observeConditions(kind);
    this.sharding?.addKind(kind);
    return new Builder<T>(this, kind, opts);
  }

  claimControllerName(name: string): void {
    if (this.controllerNames.has(name)) throw new Error(`a controller named "${name}" already exists; give this one another name with .named()`);
    this.controllerNames.add(name);
  }

  addController(c: Controller): void {
    // Sharded, every replica runs its controllers (on its share); only the rest waits for leadership.
    this.add(this.sharding ? { start: (signal) => c.start(signal), needLeaderElection: false } : c);
  }

  shardOwned(owner: ResourceKind, owned: ResourceKind): void {
    this.sharding?.addOwned(owner, owned);
  }

  wrapReconciler(kind: ResourceKind, r: Reconciler): Reconciler {
    return this.sharding ? this.sharding.wrap(kind, r) : r;
  }

  add(runnable: Runnable): void {
    this.runnables.push(runnable);
    this.startRunnable?.(runnable);
  }

  addHealthzCheck(name: string, check: Check): void {
    this.healthz.set(name, check);
  }

  addReadyzCheck(name: string, check: Check): void {
    this.readyz.set(name, check);
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error('the manager was already started');
    this.started = true;
    const stop = new StopRequest(signal);
    const servers = new AbortController();
    const caches = new AbortController();
    const work = new RunGroup(this.log, (err) => stop.fail(err));
    const leadership = new Leadership({ kubeConfig: this.kubeConfig, lease: this.lease(), log: this.log, requestObserver: this.observability.requestObserver });
    this.leaderGuard = () => leadership.guard();
    if (this.opts.leaderElection) this.observability.leading(this.opts.leaderElectionID!, false);
    let cacheDone: Promise<void> = Promise.resolve();
    try {
      await this.startServers(servers.signal, stop.signal);
      this.observability.started();
      void this.warnOnVersionSkew();
      const watched = this.watchedNamespaces;
      this.log.info(watched ? 'watching namespaces' : 'watching all namespaces', watched ? { namespaces: watched.join(',') } : {});
      // Without warmup a standby lists nothing until it leads (what is read through the cache excepted).
      cacheDone = this.cache.start(caches.signal, { lazy: this.opts.leaderElection === true && this.opts.warmup !== true && !this.sharding });
      this.sharding?.join((err) => {
        this.stopHard.fire(err.message);
        stop.fail(err);
      });
      this.startRunnable = (r) => {
        if (r.needLeaderElection === false || leadership.leading) work.run(r);
      };
      for (const r of this.runnables) if (r.needLeaderElection === false) work.run(r);
      leadership.campaign(stop.signal, {
        onLead: () => {
          this.cache.startAll();
          this.observability.leading(this.opts.leaderElectionID!, true);
          for (const r of this.runnables) if (r.needLeaderElection !== false) work.run(r);
        },
        onLost: () => {
          this.observability.leading(this.opts.leaderElectionID!, false);
          // Someone else may lead already: stop every write now, not after a graceful drain.
          this.stopHard.fire('leader election lost');
          stop.fail(new LeaderElectionLostError());
        },
        onError: (err) => stop.fail(err),
        // Hand the lease over only when nothing we started can still be writing.
        mayRelease: () => !this.stopHard.fired,
      });
      await stop.requested();
    } catch (err) {
      stop.fail(err);
    } finally {
      stop.dispose();
      this.startRunnable = undefined;
      await this.shutdown(stop, work, leadership, () => (caches.abort(), cacheDone), servers);
    }
    if (stop.failure) throw stop.failure;
  }

  /** One warning line when the API server is outside the runtime types' window; never delays or fails start. */
  private async warnOnVersionSkew(): Promise<void> {
    try {
      const warning = versionSkewWarning(await this.transport.request<ServerVersion>('GET', '/version', { context: 'get /version' }));
      if (warning) this.log.info(warning, { warning: 'version-skew' });
    } catch (err) {
      this.log.debug('could not read the API server version', { error: String(err) });
    }
  }

  /** Metrics, health probes and the webhook server (with local development), on every replica. */
  private async startServers(signal: AbortSignal, stopping?: AbortSignal): Promise<void> {
    const log = this.log;
    this.readyz.set('informer-sync', () => {
      if (!this.cache.hasSynced()) throw new Error('caches have not synced yet');
    });
    const metricsAddress = this.opts.metricsBindAddress ?? '0';
    if (metricsAddress !== '0') {
      const secure = this.opts.metricsSecure ? { kubeConfig: this.kubeConfig, certDir: this.opts.metricsCertPath, log } : undefined;
      this.ports.metrics = (await startMetricsServer(metricsAddress, this.metrics, signal, { secure })).port;
      log.info('serving metrics', { bindAddress: metricsAddress, port: this.ports.metrics });
    }
    const probeAddress = this.opts.healthProbeBindAddress ?? '0';
    if (probeAddress !== '0') {
      this.ports.healthProbe = (await startProbeServer(probeAddress, { healthz: this.healthz, readyz: this.readyz }, signal)).port;
      log.info('serving health probes', { bindAddress: probeAddress, port: this.ports.healthProbe });
    }
    if (this.webhookServer.options.certificateProvider && this.webhookServer.hasHandlers) this.readyz.set('webhook-certificate', () => this.webhookServer.checkCertificate());
    if (this.webhookServer.hasHandlers) this.ports.webhook = await this.localDevelopment.start(this.webhookServer, signal, stopping);
  }

  /** The shutdown, in order (see the top of this file). */
  private async shutdown(stop: StopRequest, work: RunGroup, leadership: Leadership, stopCaches: () => Promise<void>, servers: AbortController): Promise<void> {
    const log = this.log;
    // 1. No new work: every runnable's signal aborts.
    work.close();
    // 2. In-flight reconciles finish within the grace period; after a lost lease they were aborted already.
    if (leadership.lost) {
      log.error('leader election lost: in-flight reconciles aborted, no further writes; stopping', undefined);
    } else {
      log.info('stopping: no new work; waiting for in-flight reconciles', { gracefulShutdownTimeoutMs: this.timeoutMs });
      if (!(await work.drain(this.timeoutMs))) {
        this.stopHard.fire('the graceful shutdown period passed');
        log.error('graceful shutdown timed out; in-flight reconciles were abandoned and the lease is kept until it expires', undefined, { gracefulShutdownTimeoutMs: this.timeoutMs });
        stop.fail(new ShutdownTimeoutError(this.timeoutMs));
      }
    }
    // 3. The lease, only now, so the next leader never overlaps with our in-flight work (and not at
    //    all when that work was abandoned: see the top of this file).
    await leadership.release();
    await this.sharding?.leave(!this.stopHard.fired);
    // 4. Caches, then the events still being sent.
    await stopCaches();
    this.observability.flushRecorders();
    await settleWithin([...this.pendingEvents], 5_000);
    // 5. Webhook configurations pointed at this process (local development) go back, then the servers stop.
    await this.localDevelopment.restore();
    servers.abort();
    this.transport.destroy();
    await this.observability.stopped();
    log.info('stopped');
  }

  private lease(): { namespace: string; name: string; leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number } | undefined {
    if (!this.opts.leaderElection) return undefined;
    return {
      namespace: this.opts.leaderElectionNamespace ?? inClusterNamespace() ?? 'default',
      name: this.opts.leaderElectionID!,
      leaseDurationMs: this.opts.leaseDurationMs,
      renewDeadlineMs: this.opts.renewDeadlineMs,
      retryPeriodMs: this.opts.retryPeriodMs,
    };
  }

  private get timeoutMs(): number {
    return this.opts.gracefulShutdownTimeoutMs ?? 30_000;
  }
}
