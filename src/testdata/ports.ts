// Test support (excluded from the build): a port for a peer process the test starts (a collector, a
// controller-runtime manager) to listen on.
import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now (the kernel's pick; nothing holds it afterwards). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
