// /healthz and /readyz in the shape of controller-runtime's healthz handler, so kubelet probes and
// people reading probe output see what they know: "ok", or a 500 listing each check as [+]/[-].
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveUntilAborted } from '../internal/serving/http-server.js';

/** A named probe check: resolves (or returns) when healthy, throws or rejects when not. */
export type Check = () => Promise<void> | void;

export interface ProbeChecks {
  healthz: Map<string, Check>;
  readyz: Map<string, Check>;
}

const textPlain = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };

// Without any check an endpoint still answers, like controller-runtime's built-in "ping" check.
const pingOnly: Map<string, Check> = new Map([['ping', () => {}]]);

async function passes(check: Check): Promise<true | Error> {
  try {
    await check();
    return true;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** `GET /<endpoint>`: every check; `?exclude=<name>` skips one, `?verbose` lists them on success too. */
async function serveAll(checks: Map<string, Check>, url: URL, res: ServerResponse): Promise<void> {
  const excluded = new Set(url.searchParams.getAll('exclude'));
  const lines: string[] = [];
  let failed = false;
  for (const [name, check] of checks) {
    if (excluded.delete(name)) {
      lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    // The reason stays out of the public endpoint; /<endpoint>/<name> gives it.
    if ((await passes(check)) === true) lines.push(`[+]${name} ok`);
    else {
      lines.push(`[-]${name} failed: reason withheld`);
      failed = true;
    }
  }
  if (excluded.size > 0) {
    const names = [...excluded].map((n) => JSON.stringify(n)).join(',');
    lines.push(`warn: some health checks cannot be excluded: no matches for ${names}`);
  }
  const verbose = lines.map((l) => `${l}\n`).join('');
  if (failed) {
    res.writeHead(500, textPlain).end(`${verbose}healthz check failed\n`);
    return;
  }
  res.writeHead(200, textPlain).end(url.searchParams.has('verbose') ? `${verbose}healthz check passed\n` : 'ok');
}

/** `GET /<endpoint>/<name>`: that one check, with its error message. */
async function serveOne(check: Check, res: ServerResponse): Promise<void> {
  const outcome = await passes(check);
  if (outcome === true) res.writeHead(200, textPlain).end('ok');
  else res.writeHead(500, textPlain).end(`internal server error: ${outcome.message}\n`);
}

/**
 * Serves /healthz and /readyz (and /healthz/<name>, /readyz/<name>) on `bindAddress` (':8081' style;
 * '0' disables and resolves `{ port: 0 }`) until `signal` aborts. The maps are read on every request,
 * so checks added after start are served too.
 */
export function startProbeServer(
  bindAddress: string,
  checks: ProbeChecks,
  signal: AbortSignal,
): Promise<{ port: number }> {
  return serveUntilAborted(
    bindAddress,
    'health probe server',
    async (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const [, endpoint, name, ...rest] = url.pathname.split('/');
      const configured = endpoint === 'healthz' || endpoint === 'readyz' ? checks[endpoint] : undefined;
      const endpointChecks = configured?.size === 0 ? pingOnly : configured;
      const single = name === undefined || name === '' ? undefined : endpointChecks?.get(name);
      if (endpointChecks === undefined || rest.length > 0 || (name !== undefined && name !== '' && !single)) {
        res.writeHead(404, textPlain).end('404 page not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { ...textPlain, Allow: 'GET, HEAD' }).end('method not allowed\n');
        return;
      }
      if (single) await serveOne(single, res);
      else await serveAll(endpointChecks, url, res);
    },
    signal,
  );
}
