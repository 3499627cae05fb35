import { describe, expect, it } from 'vitest';
import { toYaml, yamlKeyCompare, yamlV2Style } from './yaml.js';

describe('YAML output in yaml.v2 layout', () => {
  it('sorts keys as yaml.v2 does: non-letters first, digit runs by value', () => {
    expect(['x-kubernetes-validations', 'type', 'Zeta', 'a10', 'a9', '$x', 'additionalProperties'].sort(yamlKeyCompare)).toEqual([
      '$x',
      'Zeta',
      'a9',
      'a10',
      'additionalProperties',
      'type',
      'x-kubernetes-validations',
    ]);
  });

  it('quotes what YAML 1.1 would read as another type with double quotes, and what plain cannot spell with single quotes', () => {
    expect(['True', 'no', '124', '', '1.5', '2024-01-15', '0x1F', 'memcached:1.6', '*', '{}', '!has(self.x)', 'Required: yes', 'a #b', '- x', 'plain text'].map(yamlV2Style)).toEqual([
      'QUOTE_DOUBLE',
      'QUOTE_DOUBLE',
      'QUOTE_DOUBLE',
      'QUOTE_DOUBLE',
      'QUOTE_DOUBLE',
      'QUOTE_DOUBLE',
      'QUOTE_DOUBLE',
      'PLAIN',
      'QUOTE_SINGLE',
      'QUOTE_SINGLE',
      'QUOTE_SINGLE',
      'QUOTE_SINGLE',
      'QUOTE_SINGLE',
      'QUOTE_SINGLE',
      'PLAIN',
    ]);
    expect(yamlV2Style('two\nlines')).toBe('BLOCK_LITERAL');
    expect(yamlV2Style('tab\there')).toBe('QUOTE_DOUBLE');
  });

  it('writes documents after ---, sequences flush with their key, and folds at the first space past column 80', async () => {
    const text = await toYaml([
      {
        items: { description: 'Condition contains details for one aspect of the current state of this API Resource.', type: 'object' },
        enum: ['True', 'False', 'Unknown'],
        list: [],
        map: {},
        doc: 'first line\nsecond line',
        tabbed: 'Example:\n\n\tkind: SalesPerson',
      },
    ]);
    expect(text).toBe(
      [
        '---',
        'doc: |-',
        '  first line',
        '  second line',
        'enum:',
        '- "True"',
        '- "False"',
        '- Unknown',
        'items:',
        '  description: Condition contains details for one aspect of the current state of this',
        '    API Resource.',
        '  type: object',
        'list: []',
        'map: {}',
        'tabbed: "Example:\\n\\n\\tkind: SalesPerson"',
        '',
      ].join('\n'),
    );
  });
});
