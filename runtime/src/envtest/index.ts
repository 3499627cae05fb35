export { startTestEnv, type TestEnv, type TestEnvOptions } from './test-env.js';
export { MissingBinariesError } from './internal/binaries.js';
