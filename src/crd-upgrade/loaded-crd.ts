// What crd diff, the released-CRD check and the cluster check share: a CRD read from YAML with a way to
// point at its fields, and a finding located at one. A leaf, so those files import it without a circle.
import type { Crd, Finding } from './diff.js';
import type { YamlPath } from './yaml-locate.js';

export interface LoadedCrd {
  crd: Crd;
  file: string;
  /** Finds the 1-based line and column of a YAML path in the CRD's document (the deepest part that exists). */
  locate: (path: YamlPath) => { line: number; column: number };
}

export interface Located {
  at: string;
  name: string;
  f: Finding;
}
