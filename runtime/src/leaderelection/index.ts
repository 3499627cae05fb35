// Lease-based leader election with client-go's semantics, so an opgen operator and a Go operator
// read a Lease the same way: a lease is free when its holder is empty or it has not been seen to
// change for leaseDuration; the leader renews every retryPeriod and steps down when it cannot renew
// for renewDeadline, or at once when a renew finds another holder in the lease (client-go's renew keeps
// retrying until renewDeadline then, while the new holder may already act); a graceful stop empties
// holderIdentity so the next candidate takes over at once.
// renewDeadline counts from the last successful renew (from when that request was sent), not from the
// start of a renew round: a blocked event loop or a hung credential plugin does not stretch
// leadership, and guard() tells the leader's own requests at once when it has lapsed.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { microTime } from '../api/internal/micro-time.js';
import { isConflict, isNotFound } from '../client/errors.js';
import { sleep, timeoutSignal } from '../internal/timers/index.js';
import type { KubeConfigLike } from '../kubeconfig/index.js';
import { type Logger, silentLogger } from '../log/index.js';
import { LeaderElectionLostError } from './errors.js';
import { type Lease, LeaseClient, type LeaseSpec } from './internal/lease-client.js';
import type { RequestObserver } from '../transport/observer.js';

export { LeaderElectionLostError };

export interface LeaderElectionConfig {
  kubeConfig: KubeConfigLike;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease (the manager's leaderElectionID). */
  name: string;
  /** Who we are in `holderIdentity`; default `<hostname>_<uuid>`, as controller-runtime. */
  identity?: string;
  /** How long a lease stays valid for others after its last observed change; default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failed renew before it gives up leadership; default 10 s. */
  renewDeadlineMs?: number;
  /** Pause between acquire attempts and between renewals; default 2 s. */
  retryPeriodMs?: number;
  log?: Logger;
  /** Told about every Lease request (the manager's: rest_client_requests_total counts them, as client-go's do). */
  requestObserver?: RequestObserver;
}

// client-go's JitterFactor: acquire attempts wait retryPeriod plus up to 1.2 × retryPeriod, so
// candidates started together do not hit the API server in lockstep.
const jitterFactor = 1.2;

export class LeaderElector {
  readonly identity: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly leases: LeaseClient;
  private readonly log: Logger;
  private readonly leaseRef: string;

  /** The last lease we read or wrote, and when (monotonic ms) its spec last changed in our eyes. */
  private observed: Lease | undefined;
  private observedSpec = '';
  private observedAt = 0;

  /** performance.now() when the last successful acquire or renew was sent. */
  private renewedAt = -Infinity;
  private leading = false;
  /** Leadership lapsed or was lost: sticky, this elector writes nothing as leader any more. */
  private fenced = false;

  constructor(config: LeaderElectionConfig) {
    this.leaseDurationMs = config.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = config.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = config.retryPeriodMs ?? 2_000;
    if (this.leaseDurationMs <= this.renewDeadlineMs) {
      throw new Error(
        `leader election: leaseDurationMs (${this.leaseDurationMs}) must be greater than renewDeadlineMs (${this.renewDeadlineMs})`,
      );
    }
    if (this.renewDeadlineMs <= jitterFactor * this.retryPeriodMs) {
      throw new Error(
        `leader election: renewDeadlineMs (${this.renewDeadlineMs}) must be greater than ${jitterFactor} × retryPeriodMs (${this.retryPeriodMs})`,
      );
    }
    if (this.leaseDurationMs < 1000) {
      throw new Error(`leader election: leaseDurationMs (${this.leaseDurationMs}) must be at least 1000 (the Lease holds whole seconds)`);
    }
    if (!config.namespace || !config.name) {
      throw new Error('leader election: the lease namespace and name are required');
    }
    this.identity = config.identity ?? `${hostname()}_${randomUUID()}`;
    this.leases = new LeaseClient(config.kubeConfig, config.namespace, config.name, config.requestObserver);
    this.log = config.log ?? silentLogger();
    this.leaseRef = `${config.namespace}/${config.name}`;
  }

  /**
   * Campaigns for the lease until acquired, calls `onStartedLeading` once, then renews until `signal`
   * aborts (releases the lease unless `opts.release()` says no, resolves `{ lost: false }`), a renew
   * fails for renewDeadline, or another holder is seen in the lease (resolves `{ lost: true }`; the
   * caller must stop leader-only work at once).
   */
  async run(signal: AbortSignal, onStartedLeading: () => void, opts: { release?: () => boolean } = {}): Promise<{ lost: boolean }> {
    try {
      return await this.campaign(signal, onStartedLeading, opts.release ?? (() => true));
    } finally {
      // Done with the lease: close the lease client's pooled connections, as the manager does for its own.
      this.leases.destroy();
    }
  }

  private async campaign(signal: AbortSignal, onStartedLeading: () => void, mayRelease: () => boolean): Promise<{ lost: boolean }> {
    if (!(await this.acquire(signal))) return { lost: false };
    // The last attempt can succeed just as the stop arrives: hand the lease back without leading.
    if (signal.aborted) {
      await this.release();
      return { lost: false };
    }
    this.leading = true;
    onStartedLeading();
    const lost = await this.renewUntilLostOrAborted(signal);
    if (lost) {
      this.fenced = true;
      this.log.error('leader election lost', undefined, { lease: this.leaseRef, identity: this.identity });
      return { lost: true };
    }
    this.leading = false;
    if (mayRelease()) await this.release();
    else this.log.info('keeping the leader lease until it expires: work started as leader may still be running', { lease: this.leaseRef, identity: this.identity });
    return { lost: false };
  }

  /**
   * While leading: an error once renewDeadline has passed since the last successful renew, or the
   * lease was lost (from then on, for good). Checked synchronously, so it holds even when the event
   * loop was blocked past the deadline and no timer has run yet. Give it to the transport of every
   * client that writes as leader (TransportOptions.guard).
   */
  guard(): Error | undefined {
    if (!this.fenced && this.leading && performance.now() >= this.renewedAt + this.renewDeadlineMs) this.fenced = true;
    return this.fenced ? new LeaderElectionLostError(`leader election lost: the lease ${this.leaseRef} was not renewed within renewDeadline (${this.renewDeadlineMs} ms); nothing more is sent as leader`) : undefined;
  }

  /** The identity in the lease as last observed ('' when free); undefined before the first read. */
  get observedHolder(): string | undefined {
    return this.observed?.spec?.holderIdentity ?? (this.observed ? '' : undefined);
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.log.info('attempting to acquire leader lease', { lease: this.leaseRef, identity: this.identity });
    let lastHolder: string | undefined;
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal, this.leaseDurationMs)) {
        this.log.info('successfully acquired lease', { lease: this.leaseRef, identity: this.identity });
        return true;
      }
      const holder = this.observedHolder;
      if (holder !== undefined && holder !== lastHolder) {
        this.log.info('lease is held by another candidate', { lease: this.leaseRef, holder });
        lastHolder = holder;
      }
      if (!(await pause(this.retryPeriodMs * (1 + Math.random() * jitterFactor), signal))) break;
    }
    return false;
  }

  /**
   * Renews every retryPeriod and retries a failed renew until renewDeadline has passed since the last
   * successful one; true when leadership is lost (that deadline passed, or another holder is seen).
   */
  private async renewUntilLostOrAborted(signal: AbortSignal): Promise<boolean> {
    const left = () => this.renewedAt + this.renewDeadlineMs - performance.now();
    for (;;) {
      if (!(await pause(Math.min(this.retryPeriodMs, Math.max(0, left())), signal))) return false;
      for (;;) {
        const remaining = left();
        if (remaining <= 0) {
          this.log.info('no successful renew within renewDeadline; giving up leadership', {
            lease: this.leaseRef,
            sinceLastRenewMs: Math.round(performance.now() - this.renewedAt),
            renewDeadlineMs: this.renewDeadlineMs,
          });
          return true;
        }
        const renewed = await this.tryAcquireOrRenew(signal, remaining);
        if (signal.aborted) return false;
        if (renewed) break;
        // Another candidate holds the lease now: leadership is lost already, waiting out the renew
        // deadline would only let us go on writing beside the new leader.
        const holder = this.observedHolder;
        if (holder !== undefined && holder !== '' && holder !== this.identity) {
          this.log.info('the lease is held by another candidate now', { lease: this.leaseRef, holder });
          return true;
        }
        if (!(await pause(Math.max(0, Math.min(this.retryPeriodMs, left())), signal))) return false;
      }
    }
  }

  /**
   * One attempt (client-go's tryAcquireOrRenew). Leader fast path: update the lease we last wrote;
   * a 409 means someone else wrote it, so fall back to reading it. Returns true when we hold it now.
   */
  private async tryAcquireOrRenew(signal: AbortSignal, timeoutMs: number): Promise<boolean> {
    const attempt = AbortSignal.any([signal, timeoutSignal(Math.max(1, Math.ceil(timeoutMs)))]);
    const now = new Date();
    const sentAt = performance.now();
    const held = (lease: Lease): true => {
      this.observe(lease);
      this.renewedAt = sentAt;
      return true;
    };
    try {
      if (this.observed && this.isLeader() && this.leaseValid()) {
        try {
          return held(await this.leases.update(this.observed, this.renewedSpec(now), attempt));
        } catch (err) {
          if (signal.aborted) return false;
          this.log.debug('failed to renew lease optimistically, reading it', { lease: this.leaseRef, error: describe(err) });
        }
      }

      let current: Lease;
      try {
        current = await this.leases.get(attempt);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        return held(
          await this.leases.create(
            {
              holderIdentity: this.identity,
              leaseDurationSeconds: this.leaseDurationSeconds(),
              acquireTime: microTime(now),
              renewTime: microTime(now),
              leaseTransitions: 0,
            },
            attempt,
          ),
        );
      }

      this.observe(current);
      const holder = current.spec?.holderIdentity ?? '';
      if (holder !== '' && !this.isLeader() && this.leaseValid()) return false;

      const spec: LeaseSpec = this.isLeader()
        ? this.renewedSpec(now)
        : {
            holderIdentity: this.identity,
            leaseDurationSeconds: this.leaseDurationSeconds(),
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: (current.spec?.leaseTransitions ?? 0) + 1,
          };
      return held(await this.leases.update(current, spec, attempt));
    } catch (err) {
      if (!signal.aborted) {
        this.log.error('error acquiring or renewing lease', err, { lease: this.leaseRef, identity: this.identity });
      }
      return false;
    }
  }

  /** Empties holderIdentity (client-go's release): the next candidate does not wait for the lease to expire. */
  private async release(): Promise<void> {
    if (!this.observed || !this.isLeader()) return;
    const signal = timeoutSignal(this.renewDeadlineMs);
    const released = (lease: Lease): LeaseSpec => {
      const now = microTime(new Date());
      return { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: lease.spec?.leaseTransitions ?? 0 };
    };
    try {
      try {
        await this.leases.update(this.observed, released(this.observed), signal);
      } catch (err) {
        // A renew whose answer the stop cut short may still have landed, leaving us an old
        // resourceVersion: read the lease and release it if it is still ours.
        if (!isConflict(err)) throw err;
        const current = await this.leases.get(signal);
        if ((current.spec?.holderIdentity ?? '') === this.identity) await this.leases.update(current, released(current), signal);
      }
      this.observed = undefined;
      this.log.info('released leader lease', { lease: this.leaseRef, identity: this.identity });
    } catch (err) {
      this.log.error('failed to release leader lease', err, { lease: this.leaseRef, identity: this.identity });
    }
  }

  private renewedSpec(now: Date): LeaseSpec {
    const spec = this.observed?.spec ?? {};
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseDurationSeconds(),
      acquireTime: spec.acquireTime ?? microTime(now),
      renewTime: microTime(now),
      leaseTransitions: spec.leaseTransitions ?? 0,
    };
  }

  /** Records a lease; the validity clock restarts only when its spec changed (client-go's observedTime). */
  private observe(lease: Lease): void {
    const spec = JSON.stringify(lease.spec ?? {});
    if (spec !== this.observedSpec) {
      this.observedSpec = spec;
      this.observedAt = performance.now();
    }
    this.observed = lease;
  }

  private isLeader(): boolean {
    return (this.observed?.spec?.holderIdentity ?? '') === this.identity;
  }

  /**
   * Whether the observed lease is still valid, judged by the duration its holder wrote into it
   * (client-go's isLeaseValid), not by our own option: a holder with a longer lease keeps it that long.
   */
  private leaseValid(): boolean {
    const seconds = this.observed?.spec?.leaseDurationSeconds ?? 0;
    return this.observedAt + seconds * 1000 > performance.now();
  }

  private leaseDurationSeconds(): number {
    return Math.round(this.leaseDurationMs / 1000);
  }
}

/** Sleeps `ms`; false when `signal` aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return sleep(ms, signal);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
