// Admission and conversion webhooks (controller-runtime's pkg/webhook and builder/webhook.go).
export { WebhookServer, defaultWebhookCertDir, maxRequestBytes, type WebhookServerOptions } from './server.js';
export { webhookFor, WebhookBuilder, defaultingPath, validationPath } from './builder.js';
export { defaultingHandler, validatingHandler } from './admission.js';
export { jsonPatchDiff } from './json-patch.js';
export {
  AdmissionDenied, denied,
  type AdmissionHandler, type AdmissionRequest, type AdmissionResponse, type AdmissionReview, type Conversion,
  type ConversionReview, type Defaulter, type GroupVersionKind, type GroupVersionResource, type Operation,
  type SpokeConversion, type StatusDetails, type UserInfo, type Validator, type Warnings,
} from './types.js';
export type { ManagerWebhookOptions } from './manager-options.js';
export { selfCertificateFromEnv, selfCertificateEnv, selfCertificateDefaults, type SelfCertificateOptions, type SelfCertificateProvider, type SelfCertificateStats } from './certprovider/index.js';
