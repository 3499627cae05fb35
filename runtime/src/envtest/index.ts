export { startTestEnv, type TestEnv, type TestEnvOptions, type WebhookServing, type SimulatedClusterOptions } from './test-env.js';
export { MissingBinariesError } from './internal/binaries.js';
export { EnvtestKubeConfig, type ApiClientConstructor, type EnvtestCluster, type EnvtestContext, type EnvtestUser } from './internal/kubeconfig.js';
export { eventually } from './eventually.js';
export {
  setupEnvtest, resolveBinaries, ChecksumMismatchError, progressTo, DEFAULT_KUBERNETES_VERSION, DEFAULT_ETCD_VERSION,
  DEFAULT_KWOK_VERSION, setupCluster, type SetupEnvtestOptions, type SetupClusterOptions, type ProgressSink,
} from './assets/index.js';
