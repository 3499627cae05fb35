// Leadership of one manager start(): campaigns for the Lease (or leads at once without leader
// election), tells the manager when it leads and when the lease was lost, and on release() stops
// campaigning, handing the lease over only when the manager says nothing it started can still write.
import type { KubeConfigLike } from '../kubeconfig/index.js';
import { LeaderElector } from '../leaderelection/index.js';
import type { Logger } from '../log/index.js';
import type { RequestObserver } from '../transport/observer.js';

export interface LeadershipOptions {
  kubeConfig: KubeConfigLike;
  /** undefined: no leader election (every replica leads). */
  lease?: { namespace: string; name: string; leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  log: Logger;
  /** The manager's observer of requests (rest_client_requests_total), for the Lease's too. */
  requestObserver?: RequestObserver;
}

export interface LeadershipEvents {
  /** Called once, when this replica leads. */
  onLead(): void;
  /** The lease was lost while leading: another replica may lead already. */
  onLost(): void;
  onError(err: unknown): void;
  /** Asked on release(): may the lease be handed over now? */
  mayRelease(): boolean;
}

export class Leadership {
  private readonly stop = new AbortController();
  private done: Promise<void> = Promise.resolve();
  private leadingNow = false;
  private lostLease = false;
  private elector?: LeaderElector;

  constructor(private readonly opts: LeadershipOptions) {}

  get leading(): boolean {
    return this.leadingNow;
  }

  get lost(): boolean {
    return this.lostLease;
  }

  /** An error once leadership lapsed (LeaderElector.guard); the manager's transport refuses to send then. */
  guard(): Error | undefined {
    return this.elector?.guard();
  }

  /** Campaigns until release(); leadership won after `stopping` aborted is not taken up. */
  campaign(stopping: AbortSignal, events: LeadershipEvents): void {
    const lease = this.opts.lease;
    if (!lease) {
      this.leadingNow = true;
      events.onLead();
      return;
    }
    const elector = new LeaderElector({ kubeConfig: this.opts.kubeConfig, ...lease, log: this.opts.log.child({ logger: 'leader-election' }), requestObserver: this.opts.requestObserver });
    this.elector = elector;
    const where = `${lease.namespace}/${lease.name}`;
    this.opts.log.info('waiting for leader election', { lease: where });
    this.done = elector.run(
      this.stop.signal,
      () => {
        if (stopping.aborted) return;
        this.opts.log.info('became leader; starting controllers', { lease: where });
        this.leadingNow = true;
        events.onLead();
      },
      { release: () => events.mayRelease() },
    ).then(
      ({ lost }) => {
        if (!lost) return;
        this.lostLease = true;
        events.onLost();
      },
      (err: unknown) => events.onError(err),
    );
  }

  /** Stops campaigning (and renewing); resolves once the lease is released or left to expire. */
  async release(): Promise<void> {
    this.stop.abort();
    await this.done;
  }
}
