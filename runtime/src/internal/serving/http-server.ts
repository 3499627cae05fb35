// The one HTTP(S) server behind the health probes, metrics and webhooks: a bind address parser in
// controller-runtime's format, plain HTTP or TLS ≥ 1.2 whose certificate can be swapped while
// serving (the next handshake gets it; open connections keep theirs), and a stop that closes every
// connection so keep-alive clients never hold the process open.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';

/** A parsed controller-runtime style bind address; `null` means "disabled" ('0'). */
export interface ListenAddress {
  host: string | undefined;
  port: number;
}

/**
 * Parses ':8080', '127.0.0.1:0', '[::1]:9090' or 'localhost:8081' the way controller-runtime's
 * BindAddress reads them; '0' disables the server. `what` names the option in the error.
 */
export function parseBindAddress(bindAddress: string, what: string): ListenAddress | null {
  if (bindAddress === '0') return null;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]*):(\d{1,5})$/.exec(bindAddress);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new Error(
      `${what}: invalid bind address '${bindAddress}'; use host:port such as ':8080' or '127.0.0.1:8080', or '0' to disable`,
    );
  }
  const rawHost = match[1] ?? '';
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  return { host: host === '' ? undefined : host, port };
}

/** host + port back to a bind address (IPv6 literals in brackets). */
export function bindAddressOf(host: string | undefined, port: number): string {
  const h = host === undefined || host === '' ? '' : host.includes(':') ? `[${host}]` : host;
  return `${h}:${port}`;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Where a TLS server gets its certificate; `onChange` is called with each new one (rotation). */
export interface CertificateSource {
  current(): SecureContextOptions;
  onChange(listener: (next: SecureContextOptions) => void): void;
}

export interface ServeOptions {
  /** Serve HTTPS (TLS 1.2 minimum) with this certificate; default plain HTTP. */
  tls?: CertificateSource;
}

export interface Serving {
  port: number;
}

/**
 * Serves `handler` on `bindAddress` until `signal` aborts, then closes the listener and every open
 * connection. Resolves with the bound port once listening, or `{ port: 0 }` when disabled or already
 * aborted. A handler that throws answers 500 with the message; the process stays up.
 */
export function serveUntilAborted(
  bindAddress: string,
  what: string,
  handler: RequestHandler,
  signal: AbortSignal,
  opts: ServeOptions = {},
): Promise<Serving> {
  let address: ListenAddress | null;
  try {
    address = parseBindAddress(bindAddress, what);
  } catch (err) {
    return Promise.reject(err);
  }
  if (address === null || signal.aborted) return Promise.resolve({ port: 0 });

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`internal server error: ${err instanceof Error ? err.message : String(err)}`);
      });
  };
  let server: Server;
  const tls = opts.tls;
  if (tls) {
    const httpsServer = createHttpsServer({ ...tls.current(), minVersion: 'TLSv1.2' }, onRequest);
    // setSecureContext replaces the context new handshakes use; connections already open keep theirs.
    tls.onChange((next) => httpsServer.setSecureContext({ ...next, minVersion: 'TLSv1.2' }));
    server = httpsServer;
  } else {
    server = createHttpServer(onRequest);
  }
  return new Promise((resolve, reject) => {
    const onStartupError = (err: NodeJS.ErrnoException) => {
      reject(new Error(`${what}: cannot listen on '${bindAddress}': ${err.code ?? err.message}`));
    };
    server.once('error', onStartupError);
    server.listen(address.port, address.host, () => {
      server.off('error', onStartupError);
      const stop = () => {
        server.close();
        server.closeAllConnections();
      };
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      const bound = server.address();
      resolve({ port: typeof bound === 'object' && bound !== null ? bound.port : address.port });
    });
  });
}
