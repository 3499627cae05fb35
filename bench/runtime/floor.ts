// The idle floor of a Node operator process, for bench/runtime: what any operator on Node does at
// idle and nothing more — HTTPS keep-alive to the API server, a list and a watch of Widgets and
// ConfigMaps in one namespace, JSON-decoded into Maps, and a /readyz endpoint. No @opgen/runtime, no
// dependencies (no metrics, no logging, no leader election, no YAML: the bench's kubeconfig, written
// by envtest, is JSON). Its idle RSS separates what Node costs from what the runtime adds.
// Flags: --namespace <ns>, --health-probe-bind-address <host:port> (others are accepted and ignored).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { namespace: { type: 'string' }, 'health-probe-bind-address': { type: 'string' } }, strict: false });
interface KubeConfigJson {
  clusters: { cluster: { server: string; 'certificate-authority-data'?: string } }[];
  users: { user: { 'client-certificate-data'?: string; 'client-key-data'?: string; token?: string } }[];
}
const kc = JSON.parse(readFileSync(process.env.KUBECONFIG!, 'utf8')) as KubeConfigJson;
const cluster = kc.clusters[0]!.cluster;
const user = kc.users[0]!.user;
const pem = (b64?: string) => (b64 ? Buffer.from(b64, 'base64') : undefined);
const agent = new https.Agent({ keepAlive: true, ca: pem(cluster['certificate-authority-data']), cert: pem(user['client-certificate-data']), key: pem(user['client-key-data']) });
const headers = { Accept: 'application/json', ...(user.token ? { Authorization: `Bearer ${user.token}` } : {}) };
const server = new URL(cluster.server);

function get(path: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: server.hostname, port: server.port, path, agent, headers }, resolve);
    req.on('error', reject);
    req.end();
  });
}

interface Obj { metadata: { name: string; resourceVersion: string } }

async function inform(path: string): Promise<Map<string, Obj>> {
  const store = new Map<string, Obj>();
  let text = '';
  for await (const chunk of await get(path)) text += chunk;
  const list = JSON.parse(text) as { metadata: { resourceVersion: string }; items: Obj[] };
  for (const o of list.items) store.set(o.metadata.name, o);
  const watch = await get(`${path}?watch=true&allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}`);
  watch.setEncoding('utf8');
  let buffered = '';
  watch.on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const event = JSON.parse(buffered.slice(0, nl)) as { type: string; object: Obj };
      buffered = buffered.slice(nl + 1);
      if (event.type === 'DELETED') store.delete(event.object.metadata.name);
      else if (event.type !== 'BOOKMARK') store.set(event.object.metadata.name, event.object);
    }
  });
  return store;
}

await inform(`/apis/bench.opgen.dev/v1/namespaces/${values.namespace}/widgets`);
await inform(`/api/v1/namespaces/${values.namespace}/configmaps`);
const [host, port] = String(values['health-probe-bind-address']).split(/:(?=\d+$)/);
http.createServer((_req, res) => res.end('ok')).listen(Number(port), host || undefined);
