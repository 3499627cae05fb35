// --metrics-secure: who may scrape is the API server's decision, as with controller-runtime's
// WithAuthenticationAndAuthorization filter. The bearer token is checked with a TokenReview, and the
// user it names with a SubjectAccessReview for the request's verb on the non-resource URL (/metrics),
// so a ClusterRole granting `get` on `/metrics` (the scaffold's metrics-reader) is what lets a
// Prometheus in.
//
// No scraper may turn its requests into API server load. The figures are controller-runtime's: a
// TokenReview answer is kept 1 minute (its CacheTTL, for accepted and rejected tokens alike), a
// SubjectAccessReview answer 5 minutes when it allows and 30 s when it denies, and a review that takes
// more than 10 s fails (TokenAccessReviewTimeout). Answers are keyed by the SHA-256 of the token (the
// token itself is not kept) and by the user and URL; concurrent scrapes with one token share one
// review; API errors are not kept. Beyond controller-runtime (whose cache a stream of distinct junk
// tokens, each one review, walks through), tokens the cache does not know draw on a budget: 20 at
// once, then 5 a second; past it a scrape gets 429 without a review. Accepted and rejected tokens are
// kept apart, so junk evicts no working scraper's entry.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Transport } from '../../transport/index.js';

export type AuthOutcome = { code: 200 } | { code: 401 | 403 | 429 | 500; message: string };

interface UserInfo { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }
interface TokenReview { status?: { authenticated?: boolean; error?: string; user?: UserInfo } }
interface SubjectAccessReview { status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string } }

/** controller-runtime's figures (see the top of this file). */
export const authDefaults = {
  authenticationTtlMs: 60_000,
  allowTtlMs: 5 * 60_000,
  denyTtlMs: 30_000,
  reviewTimeoutMs: 10_000,
  /** Reviews of tokens the cache does not know: this many at once... */
  unknownTokenBurst: 20,
  /** ...then this many a second. */
  unknownTokensPerSecond: 5,
};

type Authn = { user: UserInfo } | { failed: AuthOutcome & { code: 401 | 500 } };

export class DelegatingAuth {
  private readonly accepted = new ExpiringLru<Authn>(1024);
  private readonly rejected = new ExpiringLru<Authn>(4096);
  private readonly decisions = new ExpiringLru<AuthOutcome>(1024);
  private readonly reviewing = new Map<string, Promise<Authn>>();
  private readonly deciding = new Map<string, Promise<AuthOutcome>>();
  private readonly budget = new TokenBucket(authDefaults.unknownTokenBurst, authDefaults.unknownTokensPerSecond);

  /** `ttlMs` replaces every TTL above (tests); default controller-runtime's. */
  constructor(
    private readonly transport: Transport,
    private readonly ttlMs?: number,
  ) {}

  async check(req: IncomingMessage, path: string): Promise<AuthOutcome> {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return { code: 401, message: 'Unauthorized: a bearer token is required' };
    const verb = (req.method ?? 'GET').toLowerCase() === 'head' ? 'get' : (req.method ?? 'GET').toLowerCase();
    const authn = await this.authenticate(match[1]!);
    if (authn === 'over budget') return { code: 429, message: 'Too Many Requests: too many unknown tokens; retry in a second' };
    if ('failed' in authn) return authn.failed;
    return this.authorize(authn.user, verb, path);
  }

  private authenticate(token: string): Promise<Authn> | 'over budget' {
    const key = createHash('sha256').update(token).digest('hex');
    const known = this.accepted.get(key) ?? this.rejected.get(key);
    if (known) return Promise.resolve(known);
    const pending = this.reviewing.get(key);
    if (pending) return pending;
    if (!this.budget.take()) return 'over budget';
    const review = this.tokenReview(token).then((authn) => {
      const ttl = this.ttlMs ?? authDefaults.authenticationTtlMs;
      if ('user' in authn) this.accepted.set(key, authn, ttl);
      else if (authn.failed.code === 401) this.rejected.set(key, authn, ttl);
      return authn;
    });
    this.reviewing.set(key, review);
    void review.finally(() => this.reviewing.delete(key));
    return review;
  }

  private authorize(user: UserInfo, verb: string, path: string): Promise<AuthOutcome> {
    const key = JSON.stringify([user.username, user.uid, user.groups, user.extra, verb, path]);
    const known = this.decisions.get(key);
    if (known) return Promise.resolve(known);
    const pending = this.deciding.get(key);
    if (pending) return pending;
    const decision = this.accessReview(user, verb, path).then((outcome) => {
      // API errors are not kept: the next scrape asks again.
      if (outcome.code !== 500) this.decisions.set(key, outcome, this.ttlMs ?? (outcome.code === 200 ? authDefaults.allowTtlMs : authDefaults.denyTtlMs));
      return outcome;
    });
    this.deciding.set(key, decision);
    void decision.finally(() => this.deciding.delete(key));
    return decision;
  }

  private async tokenReview(token: string): Promise<Authn> {
    try {
      const tr = await this.transport.request<TokenReview>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
        timeoutMs: authDefaults.reviewTimeoutMs,
        context: 'metrics authentication (TokenReview)',
      });
      const user = tr.status?.user;
      if (!tr.status?.authenticated || !user) return { failed: { code: 401, message: 'Unauthorized' } };
      return { user };
    } catch (err) {
      return { failed: { code: 500, message: `authentication failed: ${err instanceof Error ? err.message : String(err)}` } };
    }
  }

  private async accessReview(user: UserInfo, verb: string, path: string): Promise<AuthOutcome> {
    try {
      const sar = await this.transport.request<SubjectAccessReview>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, nonResourceAttributes: { path, verb } },
        },
        timeoutMs: authDefaults.reviewTimeoutMs,
        context: 'metrics authorization (SubjectAccessReview)',
      });
      if (!sar.status?.allowed) {
        return { code: 403, message: `Forbidden: user "${user.username ?? ''}" cannot ${verb} path "${path}"${sar.status?.reason ? `: ${sar.status.reason}` : ''}` };
      }
      return { code: 200 };
    } catch (err) {
      return { code: 500, message: `authorization failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
}

/** At most `max` entries, the least recently used dropped first; an entry expires after its TTL. */
class ExpiringLru<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    if (hit.expires <= performance.now()) return undefined;
    this.entries.set(key, hit);
    return hit.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expires: performance.now() + ttlMs });
  }
}

/** `burst` takes at once, refilled at `perSecond`. */
class TokenBucket {
  private tokens: number;
  private at = performance.now();

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
  ) {
    this.tokens = burst;
  }

  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }
}
