// The manager's `webhook` option (createManager({ webhook })).
import type { SelfCertificateOptions } from './certprovider/options.js';

export interface ManagerWebhookOptions {
  /** Listen address; default all interfaces. */
  host?: string;
  /** Default 9443. */
  port?: number;
  /** `--webhook-cert-path`: folder with tls.crt/tls.key, reloaded when it changes. */
  certDir?: string;
  certName?: string;
  keyName?: string;
  /**
   * Local development, outside a cluster without a certificate: the server makes a CA and a serving
   * certificate, and may point the cluster's webhook configurations and conversion CRDs it serves at
   * `url` (default https://127.0.0.1:<port>) with that CA, restoring them when the manager stops.
   * - `true` or `{ url }`: point them here, whatever the cluster (you asked for it);
   * - `false`: neither the certificate nor the redirection;
   * - unset: $OPGEN_WEBHOOK_LOCAL_DEVELOPMENT (`true`, `false` or the URL) decides; without it the
   *   certificate is made outside a cluster, and the configurations are pointed here only when the
   *   API server is on this machine (a loopback address: envtest, the simulated cluster, a local
   *   kind), never on a shared cluster (one line says how to opt in). Inside a cluster: off.
   */
  localDevelopment?: boolean | { url?: string };
  certPollIntervalMs?: number;
  /**
   * The manager keeps its own serving certificate (`--cert-provider self`, docs/webhooks.md): a CA and
   * a certificate for the webhook Service in a Secret, the CA bundle injected into the webhook
   * configurations and conversion CRDs, both renewed before they expire. Replaces certDir and local
   * development's certificate; the server listens once it has a valid certificate.
   */
  selfCertificate?: SelfCertificateOptions;
}
