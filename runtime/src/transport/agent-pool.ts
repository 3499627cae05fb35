// The pooled keep-alive agent for one API server, rebuilt when the TLS material changes. Credentials
// are re-read while the process runs, and the client certificate can change with them: an exec plugin
// hands out a new one when the last expires, cert-manager or a projected volume replaces the
// client-certificate or CA file (loadKubeConfig() reads the files on every credential read). An agent
// presents the certificate it was built with on every connection (its options override a request's),
// so a new certificate needs a new agent.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { ConnectProxyAgent } from './proxy-agent.js';

export class AgentPool {
  private current?: { material: string; agent: http.Agent };
  /** Replaced agents whose in-flight requests may still run; destroy() closes them too. */
  private readonly retired = new Set<http.Agent>();

  /** The agent for a request to `base`, with `opts` as applyToHTTPSOptions() filled them in. */
  agentFor(base: URL, proxyUrl: string | undefined, opts: https.RequestOptions): http.Agent {
    const material = base.protocol === 'http:' ? 'http' : fingerprint(proxyUrl, opts);
    if (this.current?.material === material) return this.current.agent;
    // No socket cap: every watch holds a connection for minutes, and a cap would starve ordinary requests.
    let agent: http.Agent;
    if (base.protocol === 'http:') {
      agent = new http.Agent({ keepAlive: true });
    } else {
      const tlsOptions: https.AgentOptions = {
        keepAlive: true,
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        pfx: opts.pfx,
        passphrase: opts.passphrase,
        servername: opts.servername,
        ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
      };
      agent = proxyUrl ? new ConnectProxyAgent(proxyUrl, tlsOptions) : new https.Agent(tlsOptions);
    }
    if (this.current) this.retire(this.current.agent);
    this.current = { material, agent };
    return agent;
  }

  /** Closes every connection, in-flight ones included (shutdown and tests). */
  destroy(): void {
    this.current?.agent.destroy();
    for (const agent of this.retired) agent.destroy();
    this.retired.clear();
  }

  // The old agent gets no new requests (the new one has its own TLS session cache, so no session made
  // with the old certificate is resumed either). Its in-flight requests, long watches among them, keep
  // their connections until they end: agent.destroy() would cut them, and a watch cut every time a
  // certificate rotates makes every informer relist. Its idle keep-alive connections are closed now,
  // and a connection that comes free later is closed instead of pooled (keepSocketAlive returning
  // false, Node's documented hook), so nothing is left open on it once its last request ends, without
  // relying on the server's idle timeout.
  private retire(agent: http.Agent): void {
    // @types/node declares keepSocketAlive as returning void; Node destroys the socket on a falsy return.
    Object.assign(agent, { keepSocketAlive: () => false });
    for (const sockets of Object.values(agent.freeSockets)) for (const socket of [...(sockets ?? [])]) socket.destroy();
    for (const old of this.retired) if (!Object.values(old.sockets).some((s) => s?.length)) this.retired.delete(old);
    this.retired.add(agent);
  }
}

// A digest of what the agent is built from, so the pool neither keeps a second copy of the private key
// nor compares buffers field by field.
function fingerprint(proxyUrl: string | undefined, o: https.RequestOptions): string {
  const material = [proxyUrl, o.ca, o.cert, o.key, o.pfx, o.passphrase, o.servername, o.rejectUnauthorized];
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}
