// The certificate a webhook server run outside a cluster makes for itself (local development): a CA
// and a serving certificate for the local host names, plus the listen host and the host of an
// explicit local-development URL; made only when no certificate folder was given.
import type { Logger } from '../../log/index.js';
import type { ManagerWebhookOptions } from '../manager-options.js';
import type { WebhookServerOptions } from '../server.js';
import { makesOwnCertificate, type LocalDevelopmentSetting } from './redirect-decision.js';

const unspecified = new Set(['', '0.0.0.0', '::', undefined]);

/** The URL local development was given (without a trailing slash), if any. */
export function explicitUrl(setting: LocalDevelopmentSetting): string | undefined {
  return typeof setting === 'object' && setting.url ? setting.url.replace(/\/$/, '') : undefined;
}

export function webhookServerOptions(opts: ManagerWebhookOptions, setting: LocalDevelopmentSetting, log: Logger): WebhookServerOptions {
  const url = explicitUrl(setting);
  const extraHost = url ? new URL(url).hostname.replace(/^\[|\]$/g, '') : undefined;
  const hosts = ['localhost', '127.0.0.1', '::1', ...(opts.host && !unspecified.has(opts.host) ? [opts.host] : []), ...(extraHost ? [extraHost] : [])];
  return {
    host: opts.host,
    port: opts.port,
    certDir: opts.certDir,
    certName: opts.certName,
    keyName: opts.keyName,
    certPollIntervalMs: opts.certPollIntervalMs,
    selfSigned: makesOwnCertificate(setting) && opts.certDir === undefined && !opts.selfCertificate ? { hosts: [...new Set(hosts)] } : undefined,
    logger: log,
  };
}
