// A minimal JSON-over-HTTPS client with the admin certificate, for what startTestEnv itself does
// (readiness, CRDs, webhook configurations). Tests use the returned KubeConfig with a real client.
import { Agent, request } from 'node:https';

export interface Credentials { server: string; caPem: string; certPem: string; keyPem: string }
export interface Response { status: number; body: unknown; text: string }

export class AdminClient {
  // No keep-alive: an idle pooled connection would make the API server wait for it on shutdown.
  private readonly agent: Agent;
  constructor(private readonly creds: Credentials) {
    this.agent = new Agent({ ca: creds.caPem, cert: creds.certPem, key: creds.keyPem, keepAlive: false });
  }

  call(method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Response> {
    const url = new URL(path, this.creds.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(url, {
        method, agent: this.agent, timeout: timeoutMs,
        headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = undefined;
          try { parsed = text ? JSON.parse(text) : undefined; } catch { /* plain-text endpoints like /readyz */ }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out after ${timeoutMs}ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void { this.agent.destroy(); }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns a value (not undefined), the deadline passes or `signal` aborts. */
export async function poll<T>(
  what: string, timeoutMs: number, intervalMs: number, check: () => Promise<T | undefined>, signal?: AbortSignal,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (signal?.aborted) throw new Error(`envtest: stopped waiting for ${what}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`envtest: timed out after ${timeoutMs}ms waiting for ${what}${detail}`);
    }
    await sleep(intervalMs);
  }
}
