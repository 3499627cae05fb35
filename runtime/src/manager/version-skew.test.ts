import { describe, expect, it } from 'vitest';
import { RUNTIME_KUBERNETES_VERSION, versionSkew, versionSkewWarning } from './version-skew.js';
import { DEFAULT_KUBERNETES_VERSION } from '../envtest/assets/index.js';

describe('version skew window', () => {
  it('is the types\' release -3/+1 minors, and the types are the envtest default release', () => {
    expect(RUNTIME_KUBERNETES_VERSION).toBe(DEFAULT_KUBERNETES_VERSION);
    const skew = versionSkew({ major: '1', minor: '36' });
    expect(skew).toEqual({ server: { major: 1, minor: 36 }, types: { major: 1, minor: 36 }, oldest: { major: 1, minor: 33 }, newest: { major: 1, minor: 37 } });
  });

  it('warns in one line outside the window only (managed clusters write "31+")', () => {
    expect(versionSkewWarning({ major: '1', minor: '33', gitVersion: 'v1.33.0' })).toBeUndefined();
    expect(versionSkewWarning({ major: '1', minor: '37', gitVersion: 'v1.37.1' })).toBeUndefined();
    expect(versionSkewWarning({ major: '1', minor: '32+', gitVersion: 'v1.32.4-eks-1' })).toBe(
      "Kubernetes v1.32.4-eks-1 is outside @opgen/runtime's supported window 1.33-1.37 (types of 1.36.3): kinds and fields newer than the server are missing there; run `opgen doctor` for details");
    expect(versionSkewWarning({ major: '1', minor: '38', gitVersion: 'v1.38.0' })).toMatch(/outside .* the server may serve versions and fields the types do not know/);
  });
});
