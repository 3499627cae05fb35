import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

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

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * Serves `handler` on `bindAddress` until `signal` aborts, then closes the listener and every open
 * connection (scrapers keep connections alive, which would otherwise hold the process open).
 * Resolves with the bound port once listening, or `{ port: 0 }` when disabled or already aborted.
 */
export function serveUntilAborted(
  bindAddress: string,
  what: string,
  handler: RequestHandler,
  signal: AbortSignal,
): Promise<{ port: number }> {
  let address: ListenAddress | null;
  try {
    address = parseBindAddress(bindAddress, what);
  } catch (err) {
    return Promise.reject(err);
  }
  if (address === null || signal.aborted) return Promise.resolve({ port: 0 });

  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`internal server error: ${err instanceof Error ? err.message : String(err)}`);
    });
  });
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
