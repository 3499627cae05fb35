// Which kinds the API server serves, from discovery (GET /apis/<group>/<version>, which every
// authenticated user may read: no RBAC beyond the system:discovery role). Optional watches follow it:
// a watch of a kind whose CRD is not installed waits for it instead of listing a 404 forever, starts
// when the CRD appears and stops when it goes. Discovery is polled only while something follows a
// kind, once per group/version per round.
import type { ResourceKind } from '../api/kind.js';
import { isNotFound } from '../client/errors.js';
import { setTimer, type Timer } from '../internal/timers/index.js';
import type { Logger } from '../log/index.js';
import type { Transport } from '../transport/index.js';

interface Follower {
  kind: ResourceKind;
  served: boolean;
  onChange(served: boolean): void;
}

interface ApiResourceList {
  resources?: { name: string }[];
}

/** Default time between two discovery rounds while a kind is followed. */
export const defaultServedKindsPollMs = 10_000;

export class ServedKinds {
  private readonly followers = new Set<Follower>();
  private timer?: Timer;
  private round?: Promise<void>;

  constructor(
    private readonly transport: Transport,
    private readonly log: Logger,
    private readonly pollMs = defaultServedKindsPollMs,
  ) {}

  /** Whether the API server serves `kind` now; undefined when discovery failed (other than 404). */
  async isServed(kind: ResourceKind): Promise<boolean | undefined> {
    const plurals = await this.discover(kind.group, kind.version);
    return plurals === undefined ? undefined : plurals.has(kind.plural);
  }

  /**
   * Calls onChange(true) once `kind` is served (at once when it is now) and onChange(false) when it
   * stops being served, until stop(). `served` resolves with the state found first (a discovery
   * error counts as not served until a later round answers).
   */
  follow(kind: ResourceKind, onChange: (served: boolean) => void): { served: Promise<boolean>; stop(): void } {
    const f: Follower = { kind, served: false, onChange };
    const served = this.isServed(kind).then((now) => {
      if (!this.followers.has(f)) return false;
      if (now) this.set(f, true);
      return f.served;
    });
    this.followers.add(f);
    this.schedule();
    return {
      served,
      stop: () => {
        this.followers.delete(f);
        if (this.followers.size === 0) {
          this.timer?.clear();
          this.timer = undefined;
        }
      },
    };
  }

  private set(f: Follower, served: boolean): void {
    if (f.served === served) return;
    f.served = served;
    try {
      f.onChange(served);
    } catch (err) {
      this.log.error('served-kind handler failed', err, { kind: f.kind.kind });
    }
  }

  private schedule(): void {
    if (this.timer || this.followers.size === 0) return;
    this.timer = setTimer(() => {
      this.timer = undefined;
      this.round ??= this.poll().finally(() => {
        this.round = undefined;
        this.schedule();
      });
    }, this.pollMs);
    // A poll alone must not keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const byGroupVersion = new Map<string, Promise<Set<string> | undefined>>();
    for (const f of [...this.followers]) {
      const gv = `${f.kind.group}/${f.kind.version}`;
      if (!byGroupVersion.has(gv)) byGroupVersion.set(gv, this.discover(f.kind.group, f.kind.version));
      const plurals = await byGroupVersion.get(gv)!;
      // Unknown (discovery failed): keep what we knew.
      if (plurals !== undefined && this.followers.has(f)) this.set(f, plurals.has(f.kind.plural));
    }
  }

  /** The resources of one group/version; an empty set when it is not served (404), undefined on other errors. */
  private async discover(group: string, version: string): Promise<Set<string> | undefined> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    try {
      const list = await this.transport.request<ApiResourceList>('GET', path, { context: `discover ${group || 'core'}/${version}` });
      return new Set((list.resources ?? []).map((r) => r.name));
    } catch (err) {
      if (isNotFound(err)) return new Set();
      this.log.debug('discovery failed; keeping what was known', { group, version, error: (err as Error).message });
      return undefined;
    }
  }
}
