// The webhook server: HTTPS (TLS ≥ 1.2, default :9443) serving admission webhooks at their paths and
// CRD conversion at /convert. Every replica serves (no leader election). A request that is not a review
// the path can answer never reaches a handler and is refused inside a review (HTTP 200); handler
// failures become error results; the process stays up.
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertWatcher, selfSignedCertificate } from '../internal/serving/cert-watcher.js';
import { bindAddressOf, serveUntilAborted, type CertificateSource } from '../internal/serving/http-server.js';
import { createLogger, type Logger } from '../log/index.js';
import type { RuntimeMetrics, WebhookMetrics } from '../metrics/runtime-metrics.js';
import { isPanic } from '../tracing/instrument.js';
import type { Runnable } from '../manager/runnable.js';
import type { SelfCertificateProvider } from './certprovider/provider.js';
import { refusedReview, review } from './admission.js';
import { conversionKey, convertReview, failedConversion } from './conversion.js';
import type { AdmissionHandler, AdmissionReview, Conversion, ConversionReview } from './types.js';

/** controller-runtime's cap on a review's body. */
export const maxRequestBytes = 7 * 1024 * 1024;

/** Where controller-runtime looks for tls.crt/tls.key when no folder is given: $TMPDIR/k8s-webhook-server/serving-certs. */
export function defaultWebhookCertDir(): string {
  return join(tmpdir(), 'k8s-webhook-server', 'serving-certs');
}

export interface WebhookServerOptions {
  /** Listen address; default all interfaces. */
  host?: string;
  /** Default 9443; 0 picks a free port (see `port` once listening). */
  port?: number;
  /** Folder holding the serving certificate (`--webhook-cert-path`); reloaded when it changes. Default defaultWebhookCertDir(). */
  certDir?: string;
  certName?: string;
  keyName?: string;
  /**
   * No certificate in certDir: make a CA and a serving certificate for these host names/IPs instead
   * (local development). Default: refuse to start.
   */
  selfSigned?: { hosts: string[] };
  /** The certificate comes from here instead of certDir (the self certificate provider); listening waits for it. */
  certificateProvider?: SelfCertificateProvider;
  /** How often the certificate files are polled besides the file watch; default 10 s. */
  certPollIntervalMs?: number;
  logger?: Logger;
  /** controller_runtime_webhook_* and certwatcher_* series (the manager passes its own). */
  metrics?: RuntimeMetrics;
}

export class WebhookServer implements Runnable {
  readonly needLeaderElection = false;
  private readonly admission = new Map<string, AdmissionHandler>();
  private readonly conversions = new Map<string, Conversion>();
  /** CRD names (<plural>.<group>) of the registered conversions, where they are known. */
  private readonly conversionCrds = new Set<string>();
  private readonly metricsByPath = new Map<string, WebhookMetrics>();
  private readonly log: Logger;
  private listeningPort?: Promise<number>;
  private resolvePort?: (port: number) => void;
  private rejectPort?: (err: unknown) => void;
  /** PEM of the CA that signed the serving certificate, when the server made it (selfSigned). */
  caBundle?: string;
  /** The bound port once listening. */
  port?: number;

  constructor(readonly options: WebhookServerOptions = {}) {
    this.log = options.logger ?? createLogger({ fields: { logger: 'webhook' } });
  }

  /** Serves an admission webhook at `path` (e.g. '/mutate-cache-example-com-v1alpha1-memcached'). */
  register(path: string, handler: AdmissionHandler): void {
    if (!path.startsWith('/')) throw new Error(`webhook path '${path}' must start with '/'`);
    if (path === '/convert') throw new Error(`webhook path '/convert' is reserved for conversion`);
    if (this.admission.has(path)) throw new Error(`a webhook is already registered at '${path}'`);
    this.admission.set(path, handler);
    this.observe(path);
  }

  /** Converts `kind` of `group` at /convert (the hub-and-spoke conversions of one kind). */
  registerConversion(group: string, kind: string, conversion: Conversion, plural?: string): void {
    const key = conversionKey(group, kind);
    if (this.conversions.has(key)) throw new Error(`a conversion is already registered for ${key}`);
    if (conversion.spokes[conversion.hub]) throw new Error(`${key}: the hub version ${conversion.hub} cannot also be a spoke`);
    this.conversions.set(key, this.countingConversionPanics(conversion));
    if (plural) this.conversionCrds.add(`${plural}.${group}`);
    this.observe('/convert');
  }

  /** Paths served (admission paths, plus /convert when a conversion is registered). */
  paths(): string[] {
    return [...this.admission.keys(), ...(this.conversions.size > 0 ? ['/convert'] : [])];
  }

  /** Group/kind pairs with a registered conversion. */
  conversionKinds(): { group: string; kind: string }[] {
    return [...this.conversions.keys()].map((k) => {
      const dot = k.indexOf('.');
      return { kind: dot < 0 ? k : k.slice(0, dot), group: dot < 0 ? '' : k.slice(dot + 1) };
    });
  }

  get hasHandlers(): boolean {
    return this.admission.size > 0 || this.conversions.size > 0;
  }

  /** Resolves with the bound port once the server listens (rejects when it could not start). */
  listening(): Promise<number> {
    this.listeningPort ??= new Promise<number>((resolve, reject) => {
      this.resolvePort = resolve;
      this.rejectPort = reject;
    });
    return this.listeningPort;
  }

  /** Serves until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    // start() rejects too, so a failure nobody asked listening() about is not an unhandled rejection.
    this.listening().catch(() => {});
    try {
      const source = await this.certificate(signal);
      const { port } = await serveUntilAborted(
        bindAddressOf(this.options.host, this.options.port ?? 9443),
        'webhook server',
        (req, res) => this.serve(req, res),
        signal,
        { tls: source },
      );
      this.port = port;
      this.log.info('serving webhooks', { host: this.options.host ?? '', port, paths: this.paths() });
      this.resolvePort?.(port);
    } catch (err) {
      this.rejectPort?.(err);
      throw err;
    }
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  /** Readiness: throws while the certificate provider has no valid certificate (no provider: never). */
  checkCertificate(): void {
    this.options.certificateProvider?.check();
  }

  private async certificate(signal: AbortSignal): Promise<CertificateSource> {
    const provider = this.options.certificateProvider;
    if (provider) {
      await provider.start(signal, { conversionCrds: [...this.conversionCrds] });
      if (signal.aborted) throw new Error('stopped before the webhook serving certificate was ready');
      return provider;
    }
    const dir = this.options.certDir ?? defaultWebhookCertDir();
    const certName = this.options.certName ?? 'tls.crt';
    if (this.options.selfSigned && !existsSync(join(dir, certName))) {
      const { source, caPem } = selfSignedCertificate(this.options.selfSigned.hosts, 'opgen-webhook-server');
      this.caBundle = caPem;
      return source;
    }
    const watcher = new CertWatcher(dir, {
      certName,
      keyName: this.options.keyName,
      pollIntervalMs: this.options.certPollIntervalMs,
      onReload: () => {
        this.options.metrics?.certificateRead(true);
        this.log.info('serving certificate reloaded', { certDir: dir });
      },
      onError: (err) => (this.options.metrics?.certificateRead(false), this.log.debug('serving certificate not reloaded (retrying)', { certDir: dir, error: err.message })),
    });
    // The first read (the constructor's); reloads are counted as they happen.
    this.options.metrics?.certificateRead(true);
    watcher.start(signal);
    return watcher;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    const handler = this.admission.get(path);
    const converting = path === '/convert' && this.conversions.size > 0;
    // Not a webhook at all: plain HTTP errors.
    if (!handler && !converting) return fail(res, 404, `no webhook is registered at ${path}`);
    const answered = this.metricsByPath.get(path)?.request();
    if (answered) res.once('finish', () => answered(res.statusCode));
    if (req.method !== 'POST') return fail(res, 405, `${req.method} is not allowed; the API server POSTs reviews`);
    // A webhook, asked something it cannot answer: a review that refuses (HTTP 200), never an HTTP
    // error, which failurePolicy: Ignore would turn into "admit" (controller-runtime's admission/http.go).
    let parsed: unknown;
    const refuse = (code: number, message: string, opts: { close?: boolean } = {}) => {
      this.log.debug('webhook request refused', { path, code, message });
      reply(res, converting ? failedConversion(parsed, message) : refusedReview(parsed, code, message), opts);
    };
    const body = await readBody(req);
    if (body === undefined) return refuse(413, `request entity is too large; limit is ${maxRequestBytes} bytes`, { close: true });
    if (body.length === 0) return refuse(400, 'request body is empty');
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return refuse(400, `contentType=${type}, expected application/json`);
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      return refuse(400, `the body is not JSON: ${(err as Error).message}`);
    }
    if (converting) {
      const r = parsed as ConversionReview;
      if (r?.kind !== 'ConversionReview' || typeof r.request?.uid !== 'string' || !Array.isArray(r.request.objects) || typeof r.request.desiredAPIVersion !== 'string') {
        return refuse(400, 'expected a ConversionReview with request.uid, request.desiredAPIVersion and request.objects');
      }
      if (r.apiVersion !== 'apiextensions.k8s.io/v1' && r.apiVersion !== 'apiextensions.k8s.io/v1beta1') {
        return refuse(400, `unsupported ConversionReview apiVersion '${r.apiVersion}'; expected apiextensions.k8s.io/v1`);
      }
      return reply(res, await convertReview(r, this.conversions, this.log));
    }
    const r = parsed as AdmissionReview;
    if (r?.kind !== 'AdmissionReview' || typeof r.request?.uid !== 'string' || typeof r.request.operation !== 'string') {
      return refuse(400, 'expected an AdmissionReview with request.uid and request.operation');
    }
    if (r.apiVersion !== 'admission.k8s.io/v1' && r.apiVersion !== 'admission.k8s.io/v1beta1') {
      return refuse(400, `unsupported AdmissionReview apiVersion '${r.apiVersion}'; expected admission.k8s.io/v1`);
    }
    reply(res, await review(this.countingPanics(handler!), r, path, this.log));
  }

  /** The path's series, created at registration (controller-runtime's InstrumentedHook). */
  private observe(path: string): void {
    if (this.options.metrics && !this.metricsByPath.has(path)) this.metricsByPath.set(path, this.options.metrics.webhook(path));
  }

  /** `conversion`, counting in controller_runtime_conversion_webhook_panics_total what would have been a panic in Go. */
  private countingConversionPanics(conversion: Conversion): Conversion {
    const metrics = this.options.metrics;
    if (!metrics) return conversion;
    const counted = <A extends unknown[], R>(fn: (...a: A) => R) => async (...a: A) => {
      try {
        return await fn(...a);
      } catch (err) {
        if (isPanic(err)) metrics.webhookPanic(true);
        throw err;
      }
    };
    const spokes = Object.fromEntries(Object.entries(conversion.spokes).map(([v, s]) => [v, { toHub: counted(s.toHub.bind(s)), fromHub: counted(s.fromHub.bind(s)) }]));
    return { ...conversion, spokes };
  }

  /** `handler`, counting in controller_runtime_webhook_panics_total what would have been a panic in Go (see isPanic). */
  private countingPanics(handler: AdmissionHandler): AdmissionHandler {
    const metrics = this.options.metrics;
    if (!metrics) return handler;
    return async (req) => {
      try {
        return await handler(req);
      } catch (err) {
        if (isPanic(err)) metrics.webhookPanic();
        throw err;
      }
    };
  }
}

function fail(res: ServerResponse, code: number, message: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${message}\n`);
}

/** HTTP 200 with a review; `close` ends the connection (a body left unread behind it). */
function reply(res: ServerResponse, body: object, opts: { close?: boolean } = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...(opts.close ? { Connection: 'close' } : {}) }).end(text);
}

/** The body as text, or undefined when it exceeds maxRequestBytes (the rest is not read). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxRequestBytes) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > maxRequestBytes) {
        tooLarge = true;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!tooLarge) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}
