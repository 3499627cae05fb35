// An operator with Guitar's webhooks, run as its own process by local-development.envtest.test.ts, so
// the test can SIGKILL, SIGTERM or SIGINT it. argv: <runtime dist index.js> <kubeconfig>. Its log
// (JSON lines) goes to stderr; stdout gets {"event":"listening","port":N} once the server listens.
import { KubeConfig } from '@kubernetes/client-node';

const [runtimePath, kubeconfigPath] = process.argv.slice(2);
const { createManager, createLogger, setupSignalHandler } = await import(runtimePath);

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfigPath);
const mgr = await createManager({ kubeConfig, logger: createLogger(), webhook: { host: '127.0.0.1', port: 0 } });
mgr.webhookServer.register('/mutate-webhook-opgen-dev-v1-guitar', () => ({ allowed: true }));
mgr.webhookServer.register('/validate-webhook-opgen-dev-v1-guitar', () => ({ allowed: true }));
mgr.webhookServer.registerConversion('webhook.opgen.dev', 'Guitar', { hub: 'v1', spokes: { v1beta1: { toHub: (o) => o, fromHub: (o) => o } } });
void mgr.webhookServer.listening().then((port) => process.stdout.write(JSON.stringify({ event: 'listening', port }) + '\n'));
await mgr.start(setupSignalHandler());
