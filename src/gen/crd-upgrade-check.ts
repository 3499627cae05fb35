// `opgen generate`'s CRD upgrade check: the CRDs it is about to write against the project's recorded
// release (config/crd/released, `opgen crd record`), before anything is written. A project that records
// no release is not checked, and does not load the check.
import { dirname, relative } from 'node:path';
import { hasReleasedCrds } from '../crd-upgrade/released.js';

export async function checkCrdUpgrade(
  o: { cwd: string; paths?: string; allowUnsafeCrdChanges?: string },
  crdDir: string,
  outputs: readonly { abs: string; content: string }[],
  out: (line: string) => void,
): Promise<void> {
  if (!hasReleasedCrds(o.cwd)) return;
  const { checkAgainstReleased } = await import('../crd-upgrade/released.js');
  const crds = outputs.filter((f) => dirname(f.abs) === crdDir).map((f) => ({ shown: relative(o.cwd, f.abs), text: f.content }));
  await checkAgainstReleased(o.cwd, crds, { out, partial: o.paths !== undefined, ...(o.allowUnsafeCrdChanges === undefined ? {} : { allow: o.allowUnsafeCrdChanges }) });
}
