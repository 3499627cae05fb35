// --use-image-digests: each tag is resolved to the digest its registry serves now (a HEAD on the
// manifest, through the registry's anonymous token when it asks for one), so the bundle pins images.
import { OpgenError } from '../diag/diagnostic.js';

const ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

interface Ref {
  registry: string;
  repository: string;
  tag: string;
  /** The reference without tag, to append @digest to. */
  name: string;
}

export function parseImageRef(ref: string): Ref | undefined {
  if (ref.includes('@')) return undefined; // already pinned
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  const registry = hasRegistry ? first : 'registry-1.docker.io';
  let path = hasRegistry ? ref.slice(slash + 1) : ref;
  const colon = path.lastIndexOf(':');
  const tag = colon > path.lastIndexOf('/') && colon >= 0 ? path.slice(colon + 1) : 'latest';
  if (colon > path.lastIndexOf('/') && colon >= 0) path = path.slice(0, colon);
  const repository = !hasRegistry && !path.includes('/') ? `library/${path}` : path;
  const name = colon > ref.lastIndexOf('/') ? ref.slice(0, ref.lastIndexOf(':')) : ref;
  return { registry, repository, tag, name };
}

async function resolveDigest(ref: Ref): Promise<string> {
  const scheme = ref.registry.startsWith('localhost') || ref.registry.startsWith('127.') ? 'http' : 'https';
  const url = `${scheme}://${ref.registry}/v2/${ref.repository}/manifests/${ref.tag}`;
  const head = (auth?: string): Promise<Response> =>
    fetch(url, { method: 'HEAD', headers: { Accept: ACCEPT, ...(auth ? { Authorization: auth } : {}) }, signal: AbortSignal.timeout(20_000) });
  let res = await head();
  if (res.status === 401) {
    const challenge = res.headers.get('www-authenticate') ?? '';
    const params = Object.fromEntries([...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (!/^Bearer/i.test(challenge) || !params.realm) throw new Error(`the registry wants credentials (${challenge || 'no challenge'})`);
    const tokenUrl = new URL(params.realm);
    if (params.service) tokenUrl.searchParams.set('service', params.service);
    tokenUrl.searchParams.set('scope', params.scope ?? `repository:${ref.repository}:pull`);
    const t = await fetch(tokenUrl, { signal: AbortSignal.timeout(20_000) });
    if (!t.ok) throw new Error(`token request failed with HTTP ${t.status}`);
    const body = (await t.json()) as { token?: string; access_token?: string };
    res = await head(`Bearer ${body.token ?? body.access_token ?? ''}`);
  }
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${url}`);
  const digest = res.headers.get('docker-content-digest');
  if (!digest || !/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`the registry sent no Docker-Content-Digest for ${url}`);
  return digest;
}

/** image → image@sha256:… for every tagged image; images already pinned map to themselves. */
export async function pinImages(images: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const image of [...new Set(images)].sort()) {
    const ref = parseImageRef(image);
    if (!ref) {
      out.set(image, image);
      continue;
    }
    try {
      out.set(image, `${ref.name}@${await resolveDigest(ref)}`);
    } catch (err) {
      const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new OpgenError(`cannot resolve ${image} to a digest: ${reason}`, { flag: '--use-image-digests' }, 'push the image first (or log the registry in), or drop --use-image-digests');
    }
  }
  return out;
}
