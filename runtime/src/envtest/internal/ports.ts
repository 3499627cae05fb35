// Free loopback ports. Asking the kernel for port 0 and closing the socket races with other
// processes doing the same (controller-runtime#1612), so each port handed out is also reserved
// for a while with an exclusively-created marker file that other opgen test processes respect.
import { closeSync, mkdirSync, openSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const LOOPBACK = '127.0.0.1';
const RESERVATION_MS = 2 * 60 * 1000;
const reservations = join(tmpdir(), 'opgen-envtest-ports');

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen({ host: LOOPBACK, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function reserve(port: number): boolean {
  mkdirSync(reservations, { recursive: true });
  const marker = join(reservations, String(port));
  try {
    closeSync(openSync(marker, 'wx'));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(marker).mtimeMs < RESERVATION_MS) return false;
      const now = new Date();
      utimesSync(marker, now, now); // stale reservation: take it over
      return true;
    } catch {
      return false;
    }
  }
}

/** A free port on 127.0.0.1, reserved until releasePort; also recorded in `taken` for the caller's clean-up. */
export async function freePort(taken: number[]): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await kernelPort();
    if (port > 0 && reserve(port)) {
      taken.push(port);
      return port;
    }
  }
  throw new Error(`envtest: could not reserve a free port on ${LOOPBACK} after 100 tries`);
}

/** Once the server holding `port` has stopped, another environment may take it at once. */
export function releasePort(port: number): void {
  rmSync(join(reservations, String(port)), { force: true });
}
