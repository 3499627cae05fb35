// The opgen side of bench/webhook: @opgen/runtime's WebhookServer with one validating webhook whose
// handler allows everything, the same trivial handler as bench/peers/webhook-server. Run as its own
// process, as the Go peer is, so the load generator never shares its event loop.
// Flags: --port <n> (required), --cert-dir <folder with tls.crt/tls.key> (required).
import { parseArgs } from 'node:util';
import { WebhookServer, silentLogger } from '@opgen/runtime';

const { values } = parseArgs({ options: { port: { type: 'string' }, 'cert-dir': { type: 'string' } } });
const server = new WebhookServer({ host: '127.0.0.1', port: Number(values.port), certDir: values['cert-dir'], logger: silentLogger() });
server.register('/validate', () => ({ allowed: true }));
const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
process.once('SIGINT', () => stop.abort());
await server.start(stop.signal);
