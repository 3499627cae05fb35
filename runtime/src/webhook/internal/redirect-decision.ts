// Whether a manager may point the cluster's webhook configurations at itself. Doing it to a shared
// cluster breaks every matching write for every user while the process runs (failurePolicy: Fail),
// so it happens only when asked for, or when the API server is on this machine (a loopback address).
import { isIP } from 'node:net';
import type { ManagerWebhookOptions } from '../manager-options.js';

/** The environment variable that asks for (or refuses) local development: true, false or an https:// URL. */
export const localDevelopmentEnv = 'OPGEN_WEBHOOK_LOCAL_DEVELOPMENT';

export type LocalDevelopmentSetting = boolean | { url?: string } | undefined;

/** The option, else the environment variable; undefined when neither says. Throws one line for a bad value. */
export function localDevelopmentSetting(option: ManagerWebhookOptions['localDevelopment'], env: NodeJS.ProcessEnv = process.env): LocalDevelopmentSetting {
  if (option !== undefined) return option;
  const raw = env[localDevelopmentEnv]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^https:\/\/[^/]/.test(raw)) {
    try {
      return { url: new URL(raw).toString().replace(/\/$/, '') };
    } catch {
      // falls through to the error below
    }
  }
  throw new Error(`${localDevelopmentEnv}=${raw}: expected true, false or the https:// URL the API server reaches this process at`);
}

export function inCluster(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.KUBERNETES_SERVICE_HOST !== undefined && env.KUBERNETES_SERVICE_HOST !== '';
}

/**
 * Whether `server` (a kubeconfig's cluster URL) names this machine by a loopback address: 127.0.0.0/8,
 * ::1 or localhost. Host names are not resolved: one that happens to resolve to loopback counts as
 * remote, the safe side.
 */
export function isLoopbackServer(server: string | undefined): boolean {
  let host: string;
  try {
    host = new URL(server ?? '').hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^(0:){7}1$/.test(host) || /^::ffff:127\./.test(host) || /^::ffff:7f/.test(host);
  return false;
}

/** Whether the server makes its own certificate (when none is in the cert folder). */
export function makesOwnCertificate(setting: LocalDevelopmentSetting, env: NodeJS.ProcessEnv = process.env): boolean {
  return (setting ?? !inCluster(env)) !== false;
}

export type RedirectDecision =
  | { redirect: true; why: string }
  | { redirect: false; refusal?: string };

/** Redirect when asked, or (unset) when outside a cluster with the API server on loopback; else say how to opt in. */
export function decideRedirect(setting: LocalDevelopmentSetting, apiServer: string | undefined, env: NodeJS.ProcessEnv = process.env): RedirectDecision {
  if (setting === false) return { redirect: false };
  if (setting !== undefined) return { redirect: true, why: 'local development was asked for' };
  if (inCluster(env)) return { redirect: false };
  if (isLoopbackServer(apiServer)) return { redirect: true, why: 'the API server is on this machine' };
  return {
    redirect: false,
    refusal: `local development: the webhook configurations were left alone, because the API server ${apiServer ?? '(unknown)'} is not on this machine (not a loopback address) and rewriting a shared cluster's webhooks would break its writes; to point them at this process (restored when it stops), set ${localDevelopmentEnv}=true or webhook.localDevelopment: true`,
  };
}
