// A raw call to the API server for tests that need what typed clients hide (response headers such as
// Warning, subresources such as serviceaccounts/token).
import { request, type RequestOptions } from 'node:https';
import type { TestEnv } from '../../envtest/index.js';

export interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: any }

/** A raw call to the API server, so response headers (Warning) are visible. */
export async function api(env: Pick<TestEnv, 'server' | 'kubeConfig'>, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const url = new URL(path, env.server);
  const opts: RequestOptions = { method, headers: { Accept: 'application/json', ...headers } };
  await env.kubeConfig.applyToHTTPSOptions(opts);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload) (opts.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
  return new Promise((resolve, reject) => {
    const req = request(url, { ...opts, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export function warningsOf(reply: Reply): string[] {
  const raw = reply.headers.warning;
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  // `299 - "text"`
  return list.map((w) => /^\d{3} \S+ "(.*)"$/.exec(w)?.[1]?.replace(/\\"/g, '"') ?? w);
}

