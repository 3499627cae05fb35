// A minimal operator run as its own process by signals.test.ts: it reconciles Guestbooks slowly and
// prints what happens as JSON lines on stdout. argv: <runtime dist index.js> <kubeconfig> <namespace>
import { KubeConfig } from '@kubernetes/client-node';

const [runtimePath, kubeconfigPath, namespace] = process.argv.slice(2);
const { createManager, groupVersion, setupSignalHandler, silentLogger, Result } = await import(runtimePath);

const say = (event) => process.stdout.write(JSON.stringify({ event }) + '\n');
const Guestbook = groupVersion('runtime.opgen.dev', 'v1').kind('Guestbook');
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfigPath);

const mgr = await createManager({ kubeConfig, logger: silentLogger(), namespaces: [namespace], gracefulShutdownTimeoutMs: 20_000 });
mgr.controllerFor(Guestbook).complete({
  async reconcile(req) {
    say(`start ${req.name}`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    say(`end ${req.name}`);
    return Result.done();
  },
});
const signal = setupSignalHandler();
signal.addEventListener('abort', () => say('signal'));
say('ready');
await mgr.start(signal);
say('stopped');
