// A default of "" or false on a field of a named type (gateway-api's `// +kubebuilder:default=""` on a
// Group field) is a JSON value, not Go's zero value: controller-gen keeps it through flattening.
import { describe, expect, it } from 'vitest';
import { flattenLayer } from './flatten.js';

describe('flattening keeps falsy defaults', () => {
  it.each([
    ['""', { type: 'string', pattern: '^[a-z]*$' }, ''],
    ['false', { type: 'boolean' }, false],
    ['0', { type: 'integer', format: 'int32' }, 0],
  ] as const)('default %s on a named type', (_label, type, value) => {
    const merged = flattenLayer({ ...type }, { default: value, description: 'the field' }, () => {});
    expect(merged.default).toBe(value);
  });
});
