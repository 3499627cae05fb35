// Webhook generation: +kubebuilder:webhook markers → admission webhook configurations.
export { generateWebhooks } from './generate.js';
export { WEBHOOK_CONFIGURATION_MARKER, WEBHOOK_MARKER, registerWebhookMarkers } from './markers.js';
