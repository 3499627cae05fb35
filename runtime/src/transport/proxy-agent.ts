// A cluster's proxy-url (client-go: rest.Config.Proxy), or without one HTTPS_PROXY as client-go reads
// it (proxy-env.ts): requests to an https API server go through an HTTP CONNECT tunnel opened on the
// proxy, and TLS to the API server runs inside it, so the proxy sees only the host and port. Only
// http:// proxies (the kind `kubectl` users put there); anything else is refused with a message.
import { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import https from 'node:https';
import net from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { connect as tlsConnect } from '../internal/tls/node-tls.js';

/** An https.Agent whose connections are CONNECT tunnels through `proxyUrl`. */
export class ConnectProxyAgent extends https.Agent {
  private readonly proxy: URL;

  constructor(proxyUrl: string, opts: https.AgentOptions) {
    super(opts);
    this.proxy = new URL(proxyUrl);
  }

  override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): undefined {
    const done = callback ?? (() => undefined);
    const host = String(options.host ?? options.hostname ?? 'localhost').replace(/^\[(.*)\]$/, '$1');
    const port = Number(options.port ?? 443);
    const target = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    const proxyName = `${this.proxy.protocol}//${this.proxy.host}`;
    const fail = (why: string) => done(new Error(`proxy ${proxyName}: CONNECT ${target} ${why}`), undefined as unknown as Duplex);
    const socket = net.connect({ host: this.proxy.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(this.proxy.port || 80) });
    let answer = Buffer.alloc(0);
    const onError = (err: Error) => fail(`failed: ${err.message}`);
    socket.once('error', onError);
    socket.once('connect', () => {
      const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`];
      if (this.proxy.username) {
        const credentials = `${decodeURIComponent(this.proxy.username)}:${decodeURIComponent(this.proxy.password)}`;
        lines.push(`Proxy-Authorization: Basic ${Buffer.from(credentials).toString('base64')}`);
      }
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    const onData = (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf('\r\n\r\n');
      if (end < 0) {
        if (answer.length > 16_384) {
          socket.destroy();
          fail('failed: the proxy sent no complete answer');
        }
        return;
      }
      socket.off('data', onData);
      socket.off('error', onError);
      const status = /^HTTP\/1\.[01] (\d{3})(.*)$/.exec(answer.subarray(0, answer.indexOf('\r\n')).toString('latin1'));
      if (!status || status[1] !== '200') {
        socket.destroy();
        fail(`was refused: ${status ? `${status[1]}${status[2]}` : 'not an HTTP answer'}`);
        return;
      }
      // Anything after the header belongs to the tunnel (the server speaks first in TLS only after
      // our ClientHello, so this is empty in practice).
      const rest = answer.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      const secure = tlsConnect({ ...(options as ConnectionOptions), socket, servername: options.servername ?? (net.isIP(host) ? undefined : host) });
      done(null, secure);
    };
    socket.on('data', onData);
    return undefined;
  }
}
