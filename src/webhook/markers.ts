import { argTypes, type MarkerDefinition, type Registry } from '../markers/index.js';

export const WEBHOOK_MARKER: MarkerDefinition = {
  name: 'kubebuilder:webhook',
  targets: ['package'],
  shape: 'struct',
  args: [
    { name: 'mutating', type: argTypes.bool, help: 'true for a mutating (defaulting) webhook, false for validating' },
    { name: 'failurePolicy', type: argTypes.string, help: 'fail or ignore' },
    { name: 'matchPolicy', type: argTypes.string, optional: true, help: 'Exact or Equivalent' },
    { name: 'sideEffects', type: argTypes.string, optional: true, help: 'None or NoneOnDryRun' },
    { name: 'timeoutSeconds', type: argTypes.int, optional: true, help: '1 to 30' },
    { name: 'groups', type: argTypes.stringList, help: 'API groups of the resources' },
    { name: 'resources', type: argTypes.stringList, help: 'resources (plural)' },
    { name: 'verbs', type: argTypes.stringList, help: 'create, update, delete, connect or *' },
    { name: 'versions', type: argTypes.stringList, help: 'API versions' },
    { name: 'name', type: argTypes.string, help: 'webhook name, a domain name such as mfoo.kb.io' },
    { name: 'path', type: argTypes.string, optional: true, help: 'URL path on the webhook service' },
    { name: 'url', type: argTypes.string, optional: true, help: 'full URL instead of a service path' },
    { name: 'admissionReviewVersions', type: argTypes.stringList, help: 'e.g. v1' },
    { name: 'reinvocationPolicy', type: argTypes.string, optional: true, help: 'Never or IfNeeded (mutating only)' },
    { name: 'webhookVersions', type: argTypes.stringList, optional: true, help: 'only v1' },
    { name: 'serviceName', type: argTypes.string, optional: true, help: 'service name (default webhook-service)' },
    { name: 'serviceNamespace', type: argTypes.string, optional: true, help: 'service namespace (default system)' },
    { name: 'servicePort', type: argTypes.int, optional: true, help: 'service port' },
    { name: 'patch', type: argTypes.string, optional: true, help: 'JSON merged into the webhook entry (selectors, matchConditions)' },
  ],
  help: 'an admission webhook: becomes an entry of config/webhook/manifests.yaml',
};

export const WEBHOOK_CONFIGURATION_MARKER: MarkerDefinition = {
  name: 'kubebuilder:webhookconfiguration',
  targets: ['package'],
  shape: 'struct',
  args: [
    { name: 'mutating', type: argTypes.bool, help: 'which configuration to name' },
    { name: 'name', type: argTypes.string, help: 'the configuration object name' },
  ],
  help: 'renames the Mutating/ValidatingWebhookConfiguration',
};

export function registerWebhookMarkers(registry: Registry): void {
  registry.define(WEBHOOK_MARKER);
  registry.define(WEBHOOK_CONFIGURATION_MARKER);
}
