// A floor for bench/webhook: node:https with the same answer and nothing else (no routing, checks or
// logging), so the figures separate the cost of Node's HTTPS stack from the cost of opgen's server.
// Flags: --port <n>, --cert-dir <folder with tls.crt/tls.key>.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string' }, 'cert-dir': { type: 'string' } } });
const dir = values['cert-dir'] ?? '.';
const server = createServer({ cert: readFileSync(join(dir, 'tls.crt')), key: readFileSync(join(dir, 'tls.key')), minVersion: 'TLSv1.2' }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString()) as { apiVersion: string; request: { uid: string } };
    const text = JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
  });
});
server.listen(Number(values.port), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
process.once('SIGINT', () => server.close(() => process.exit(0)));
