// RE2 flag groups ((?i) anywhere, (?i:…), (?s), (?U), (?-i)) are valid in the API server's regexes;
// gateway-api's GRPCRoute CRD writes `^(?i)\.?[a-z_]…` and is installed in real clusters.
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../common/json-schema.js';
import { checkCelRules } from './check.js';

const withRule = (rule: string): JSONSchemaProps => ({
  type: 'object',
  properties: { name: { type: 'string', maxLength: 63 } },
  'x-kubernetes-validations': [{ rule }],
});

describe('RE2 flag groups in CEL regexes', () => {
  it.each(['self.name.matches("^(?i)[a-z]+$")', 'self.name.matches("(?i:ab)c")', 'self.name.matches("(?s).*(?-s)x")', 'self.name.matches("(?U)a+")'])('%s is accepted', (rule) => {
    expect(checkCelRules(withRule(rule))).toEqual([]);
  });

  it('a broken pattern after a flag group is still refused', () => {
    expect(checkCelRules(withRule('self.name.matches("^(?i)[a-z")'))).toHaveLength(1);
  });
});
