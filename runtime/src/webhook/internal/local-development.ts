// A manager run outside a cluster serves its webhooks with a certificate it made itself; the API server
// calls it only if its webhook configurations (and conversion CRDs) point here with that CA. This is
// the manager's one owner of that: the decision (redirect-decision.ts), the certificate the server
// makes (serverOptions), and the patch and restore (redirect.ts) with the repair of what a killed run
// left behind. It uses a client of its own, not fenced by the manager's hard stop, so the restore
// still happens after a lost lease.
import type { KubeConfigLike } from '../../kubeconfig/index.js';
import type { Logger } from '../../log/index.js';
import { Transport } from '../../transport/index.js';
import type { ManagerWebhookOptions } from '../manager-options.js';
import type { WebhookServer, WebhookServerOptions } from '../server.js';
import { isForbidden } from '../../client/errors.js';
import { SelfCertificateProvider } from '../certprovider/provider.js';
import { explicitUrl, webhookServerOptions } from './local-certificate.js';
import { decideRedirect, inCluster, localDevelopmentSetting, type LocalDevelopmentSetting } from './redirect-decision.js';
import { leftBehind, newOwner, redirectWebhooks, releaseOwner, restoreWebhooks, sameOwner, type Owner } from './redirect.js';

const unspecified = new Set(['', '0.0.0.0', '::', undefined]);

/** How long each request of the redirect, restore and repair may take. */
const requestTimeoutMs = 15_000;

export class LocalDevelopment {
  private readonly setting: LocalDevelopmentSetting;
  private owner?: Owner;
  private transport?: Transport;

  /** Reads the option and $OPGEN_WEBHOOK_LOCAL_DEVELOPMENT; throws one line for a bad value. */
  constructor(
    private readonly kubeConfig: KubeConfigLike,
    private readonly opts: ManagerWebhookOptions,
    private readonly log: Logger,
  ) {
    this.setting = localDevelopmentSetting(opts.localDevelopment);
  }

  /** The webhook server's options: a certificate of its own for the local host names, unless turned off. */
  serverOptions(): WebhookServerOptions {
    const options = webhookServerOptions(this.opts, this.setting, this.log);
    if (this.opts.selfCertificate) options.certificateProvider = new SelfCertificateProvider(this.kubeConfig, this.opts.selfCertificate, this.log.child({ logger: 'cert-provider' }));
    return options;
  }

  /**
   * Starts `server` (serving until `signal` aborts); once it listens, repairs what an earlier killed
   * run on this machine left redirected (outside a cluster), then, when the server made its own
   * certificate, points the cluster's webhooks here if the decision allows, or logs the one-line
   * refusal. Resolves with the port.
   */
  async start(server: WebhookServer, signal: AbortSignal, stopping?: AbortSignal): Promise<number> {
    this.transport?.destroy();
    const started = server.start(signal);
    // A stop asked for while the server still waits for its certificate (the self provider) ends the wait
    // here: 0, nothing redirected; the server gives up when `signal` aborts at the end of the shutdown.
    const stopped = new Promise<number>((resolve) => (stopping?.aborted ? resolve(0) : stopping?.addEventListener('abort', () => resolve(0), { once: true })));
    const port = await Promise.race([server.listening(), started.then(() => server.listening()), stopped]);
    if (port === 0 && stopping?.aborted) return 0;
    const apiServer = this.kubeConfig.getCurrentCluster()?.server;
    const decision = decideRedirect(this.setting, apiServer);
    // Inside a cluster nothing was redirected from there (and the manager's Role has no right to),
    // unless asked for. Every redirect below has this transport.
    if (decision.redirect || !inCluster()) {
      this.transport = new Transport(this.kubeConfig, { requestTimeoutMs });
      await this.repair();
    }
    if (!server.caBundle) return port;
    if (!decision.redirect) {
      if (decision.refusal) this.log.info(decision.refusal);
      return port;
    }
    const host = unspecified.has(this.opts.host) ? '127.0.0.1' : this.opts.host!;
    const baseUrl = this.explicitUrl ?? `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    this.owner = newOwner();
    const changed = await redirectWebhooks(this.transport!, { paths: server.paths(), conversionKinds: server.conversionKinds(), baseUrl, caBundlePem: server.caBundle }, this.owner);
    if (changed.length > 0) this.log.info('pointed webhooks at this process (local development)', { url: baseUrl, why: decision.why, changed });
    else this.log.info('local development: no webhook configuration or conversion CRD names a path this process serves', { url: baseUrl, paths: server.paths() });
    return port;
  }

  /** Puts back what start() redirected. Never throws: a failure is logged (the next start repairs it). */
  async restore(): Promise<void> {
    const owner = this.owner;
    const transport = this.transport;
    this.owner = undefined;
    this.transport = undefined;
    try {
      if (owner && transport) {
        const restored = await restoreWebhooks(transport, (record) => sameOwner(record, owner));
        if (restored.length > 0) this.log.info('restored the webhook configurations this process had pointed at itself', { restored });
      }
    } catch (err) {
      this.log.error('could not restore the webhook configurations this process pointed at itself; the next start on this machine repairs them', err);
    } finally {
      if (owner) releaseOwner(owner);
      transport?.destroy();
    }
  }

  /** Undoes redirects made on this machine by managers that are gone (killed before they could restore). */
  private async repair(): Promise<void> {
    try {
      const repaired = await restoreWebhooks(this.transport!, leftBehind);
      if (repaired.length > 0) this.log.info('restored webhook configurations an earlier run on this machine had left pointing at itself', { restored: repaired });
    } catch (err) {
      const message = 'could not check for webhook configurations an earlier run on this machine left pointing at itself';
      if (isForbidden(err)) this.log.info(`${message}: ${(err as Error).message}`);
      else this.log.error(message, err);
    }
  }

  private get explicitUrl(): string | undefined {
    return explicitUrl(this.setting);
  }
}
