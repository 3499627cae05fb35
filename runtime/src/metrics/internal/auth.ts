// --metrics-secure: who may scrape is the API server's decision, as with controller-runtime's
// WithAuthenticationAndAuthorization filter. The bearer token is checked with a TokenReview, and the
// user it names with a SubjectAccessReview for the request's verb on the non-resource URL (/metrics),
// so a ClusterRole granting `get` on `/metrics` (the scaffold's metrics-reader) is what lets a
// Prometheus in. Answers are cached briefly per token and URL: a scrape every few seconds then costs
// no API calls, and a revoked role takes effect within the TTL.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Transport } from '../../transport/index.js';

export type AuthOutcome = { code: 200 } | { code: 401 | 403 | 500; message: string };

interface TokenReview { status?: { authenticated?: boolean; error?: string; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } } }
interface SubjectAccessReview { status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string } }

const maxCacheEntries = 1024;

export class DelegatingAuth {
  private readonly cache = new Map<string, { outcome: AuthOutcome; expires: number }>();

  constructor(
    private readonly transport: Transport,
    private readonly ttlMs = 10_000,
  ) {}

  async check(req: IncomingMessage, path: string): Promise<AuthOutcome> {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return { code: 401, message: 'Unauthorized: a bearer token is required' };
    const verb = (req.method ?? 'GET').toLowerCase() === 'head' ? 'get' : (req.method ?? 'GET').toLowerCase();
    const key = `${createHash('sha256').update(match[1]!).digest('hex')} ${verb} ${path}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit.outcome;
    const outcome = await this.review(match[1]!, verb, path);
    // API errors are not cached: the next scrape asks again.
    if (outcome.code !== 500) {
      if (this.cache.size >= maxCacheEntries) this.cache.clear();
      this.cache.set(key, { outcome, expires: now + this.ttlMs });
    }
    return outcome;
  }

  private async review(token: string, verb: string, path: string): Promise<AuthOutcome> {
    try {
      const tr = await this.transport.request<TokenReview>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
        context: 'metrics authentication (TokenReview)',
      });
      const user = tr.status?.user;
      if (!tr.status?.authenticated || !user) return { code: 401, message: 'Unauthorized' };
      const sar = await this.transport.request<SubjectAccessReview>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, nonResourceAttributes: { path, verb } },
        },
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
