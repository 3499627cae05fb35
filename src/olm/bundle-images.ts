// The images a bundle runs: the CSV's relatedImages, containerImage and digest pinning (--use-image-digests).
import { isRecord, nameOf, type KubeObject } from './objects.js';

interface Container {
  name?: string;
  image?: string;
  env?: { name?: string; value?: string }[];
}

function containersOf(d: KubeObject): Container[] {
  const pod = (d.spec as { template?: { spec?: { containers?: Container[]; initContainers?: Container[] } } } | undefined)?.template?.spec;
  return [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
}

export function firstImage(d: KubeObject): string | undefined {
  const pod = (d.spec as { template?: { spec?: { containers?: Container[] } } } | undefined)?.template?.spec;
  return pod?.containers?.[0]?.image;
}

/** Every image the operator runs or names in RELATED_IMAGE_* variables, with the base CSV's entries kept. */
export function imagesOf(deployments: KubeObject[]): { name: string; image: string }[] {
  const out: { name: string; image: string }[] = [];
  for (const d of deployments) {
    for (const c of containersOf(d)) {
      if (c.image) out.push({ name: c.name ?? nameOf(d), image: c.image });
      for (const e of c.env ?? []) {
        if (e.name?.startsWith('RELATED_IMAGE_') && e.value) out.push({ name: e.name.slice('RELATED_IMAGE_'.length).toLowerCase().replaceAll('_', '-'), image: e.value });
      }
    }
  }
  return out;
}

export function relatedImages(deployments: KubeObject[], fromBase: unknown, pinned: Map<string, string> | undefined): { name: string; image: string }[] {
  const out: { name: string; image: string }[] = [];
  const seen = new Set<string>();
  const user = (Array.isArray(fromBase) ? fromBase.filter(isRecord) : []) as { name: string; image: string }[];
  for (const r of [...user, ...imagesOf(deployments)]) {
    const image = pinned?.get(r.image) ?? r.image;
    if (seen.has(image)) continue;
    seen.add(image);
    out.push({ ...r, image });
  }
  return out;
}

export function pinImages(spec: Record<string, unknown>, pinned: Map<string, string> | undefined): Record<string, unknown> {
  if (!pinned || pinned.size === 0) return spec;
  const pod = (spec.template as { spec?: { containers?: Container[]; initContainers?: Container[] } } | undefined)?.spec;
  for (const c of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
    if (c.image && pinned.has(c.image)) c.image = pinned.get(c.image);
    for (const e of c.env ?? []) if (e.name?.startsWith('RELATED_IMAGE_') && e.value && pinned.has(e.value)) e.value = pinned.get(e.value);
  }
  return spec;
}
