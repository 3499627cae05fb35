export { startTestEnv, type TestEnv, type TestEnvOptions, type WebhookServing } from './test-env.js';
export { MissingBinariesError } from './internal/binaries.js';
export { eventually } from './eventually.js';
