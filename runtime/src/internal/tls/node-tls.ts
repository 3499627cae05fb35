// node:tls, loaded through require rather than `import`. An ES import of a built-in module makes Node
// build a facade holding a copy of every export, and reading tls's `rootCertificates` getter for it
// parses Node's ~140 bundled root certificates into strings that stay on the heap for the life of the
// process (~1.3 MB of an idle operator's RSS). The runtime never reads that list (the API server's CA
// comes from the kubeconfig), so it takes only the two functions it calls.
import { createRequire } from 'node:module';
import type * as Tls from 'node:tls';

const tls = createRequire(import.meta.url)('node:tls') as typeof Tls;

export const connect: typeof Tls.connect = tls.connect;
export const createSecureContext: typeof Tls.createSecureContext = tls.createSecureContext;
