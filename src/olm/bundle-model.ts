// What the bundle's files share: the inputs of one `generate bundle` run and the parts of a CRD and a
// pod template the bundle reads. It imports nothing from olm/, so bundle.ts and its helpers all sit on it.

/** One `opgen generate bundle` run's package, version, channels and output. */
export interface BundleInputs {
  package: string;
  version: string;
  channels: string[];
  defaultChannel: string;
  replaces?: string;
  skipRange?: string;
  /** Bundle directory relative to the project root. */
  outputDir: string;
  /** image reference → digest-pinned reference (--use-image-digests). */
  pinned?: Map<string, string>;
}

/** The fields of a CRD's spec the bundle reads. */
export interface CrdSpec {
  group?: string;
  names?: { kind?: string; plural?: string };
  versions?: { name: string; served?: boolean; storage?: boolean }[];
  conversion?: { strategy?: string; webhook?: { conversionReviewVersions?: string[]; clientConfig?: { service?: { name?: string; namespace?: string; path?: string; port?: number } } } };
}

/** The fields of a pod template's spec the bundle reads (webhook certificate mounts). */
interface PodVolume { name?: string; secret?: { secretName?: string; optional?: boolean } }
interface PodContainer { volumeMounts?: { name?: string; mountPath?: string }[]; env?: { name?: string; valueFrom?: { fieldRef?: { fieldPath?: string } } }[] }
export interface PodSpec { volumes?: PodVolume[]; containers?: PodContainer[]; initContainers?: PodContainer[] }
