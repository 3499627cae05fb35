// The HTTP(S) endpoint Prometheus scrapes, apart from the series it serves (as controller-runtime's
// pkg/metrics/server is apart from pkg/metrics): with --metrics-secure it asks the API server who may
// scrape (auth.ts), so it sits above the transport while the series stay a leaf.
import { hostname } from 'node:os';
import { Transport } from '../../transport/index.js';
import { CertWatcher, selfSignedCertificate } from '../../internal/serving/cert-watcher.js';
import { serveUntilAborted, type CertificateSource } from '../../internal/serving/http-server.js';
import type { KubeConfigLike } from '../../kubeconfig/index.js';
import type { Logger } from '../../log/index.js';
import type { RuntimeMetrics } from '../runtime-metrics.js';
import { DelegatingAuth } from './auth.js';

export interface MetricsServerOptions {
  /**
   * HTTPS with authentication (TokenReview) and authorization (SubjectAccessReview: the request's verb
   * on the non-resource URL /metrics) by the API server of `kubeConfig`; default plain HTTP, open.
   */
  secure?: {
    kubeConfig: KubeConfigLike;
    /** Folder with tls.crt/tls.key (`--metrics-cert-path`), reloaded when it changes; default a self-signed certificate. */
    certDir?: string;
    certName?: string;
    keyName?: string;
    /**
     * How long an authentication/authorization answer is reused; default controller-runtime's: 1 min
     * for a TokenReview, 5 min for a SubjectAccessReview that allows and 30 s for one that denies. A
     * figure here replaces all three.
     */
    authCacheTtlMs?: number;
    certPollIntervalMs?: number;
    log?: Logger;
  };
}

/**
 * Serves `GET /metrics` in the Prometheus text format on `bindAddress` (':8080' style; '0' disables
 * and resolves `{ port: 0 }`) until `signal` aborts. Resolves with the bound port once listening.
 */
export function startMetricsServer(
  bindAddress: string,
  metrics: RuntimeMetrics,
  signal: AbortSignal,
  opts: MetricsServerOptions = {},
): Promise<{ port: number }> {
  const secure = opts.secure;
  let tls: CertificateSource | undefined;
  let auth: DelegatingAuth | undefined;
  if (secure && bindAddress !== '0' && !signal.aborted) {
    try {
      if (secure.certDir) {
        const watcher = new CertWatcher(secure.certDir, {
          certName: secure.certName,
          keyName: secure.keyName,
          pollIntervalMs: secure.certPollIntervalMs,
          onReload: () => secure.log?.info('metrics serving certificate reloaded', { certDir: secure.certDir }),
        });
        watcher.start(signal);
        tls = watcher;
      } else {
        tls = selfSignedCertificate(['localhost', '127.0.0.1', '::1', hostname()], 'opgen-metrics-server').source;
      }
    } catch (err) {
      return Promise.reject(new Error(`metrics server: ${(err as Error).message}`));
    }
    const transport = new Transport(secure.kubeConfig);
    signal.addEventListener('abort', () => transport.destroy(), { once: true });
    auth = new DelegatingAuth(transport, secure.authCacheTtlMs);
  }
  return serveUntilAborted(
    bindAddress,
    'metrics server',
    async (req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' }).end('method not allowed\n');
        return;
      }
      if (auth) {
        const outcome = await auth.check(req, path);
        if (outcome.code !== 200) {
          res.writeHead(outcome.code, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${outcome.message}\n`);
          return;
        }
      }
      const { contentType, body } = await metrics.registry.exposition(req.headers.accept);
      res.writeHead(200, { 'Content-Type': contentType });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
    signal,
    { tls },
  );
}
