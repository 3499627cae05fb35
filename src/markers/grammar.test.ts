import { describe, expect, it } from 'vitest';
import { createGeneratorRegistry } from '../registry/index.js';
import { MarkerSyntaxError, parseArguments, splitMarker } from './grammar.js';

const { registry } = createGeneratorRegistry();

function parse(text: string): unknown {
  const split = splitMarker(text, (n) => registry.lookup(n));
  if (!split) throw new Error(`unknown: ${text}`);
  return parseArguments(split);
}

function syntaxError(text: string): MarkerSyntaxError {
  try {
    parse(text);
  } catch (err) {
    if (err instanceof MarkerSyntaxError) return err;
    throw err;
  }
  throw new Error(`no error for ${text}`);
}

describe('marker grammar', () => {
  it('reads flags, single values and named arguments', () => {
    expect(parse('kubebuilder:subresource:status')).toBe(true);
    expect(parse('kubebuilder:validation:Minimum=-1.5')).toBe(-1.5);
    expect(parse('kubebuilder:validation:MaxLength=63')).toBe(63);
    expect(parse('groupName=cache.example.com')).toBe('cache.example.com');
    expect(parse('groupName=')).toBe('');
    expect(parse('kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"')).toEqual({
      name: 'Age',
      type: 'date',
      JSONPath: '.metadata.creationTimestamp',
    });
  });

  it('reads lists in both spellings, maps, and any-typed values by spelling', () => {
    expect(parse('kubebuilder:rbac:groups=apps,resources=deployments;deployments/status,verbs={get,list,watch}')).toEqual({
      groups: ['apps'],
      resources: ['deployments', 'deployments/status'],
      verbs: ['get', 'list', 'watch'],
    });
    expect(parse('kubebuilder:validation:Enum=1;2;"foo";bar')).toEqual([1, 2, 'foo', 'bar']);
    expect(parse('kubebuilder:default={a: 1, b: "x", c: {d,e}}')).toEqual({ a: 1, b: 'x', c: ['d', 'e'] });
    expect(parse('kubebuilder:default={}')).toEqual({});
    expect(parse('kubebuilder:default:={}')).toEqual({});
    expect(parse('kubebuilder:default={1,2}')).toEqual([1, 2]);
    expect(parse('kubebuilder:default=100Mi')).toBe('100Mi');
    expect(parse('kubebuilder:default=2024-01-15')).toBe('2024-01-15');
    expect(parse('kubebuilder:default=true')).toBe(true);
    expect(parse('kubebuilder:default=1.5')).toBe(1.5);
    expect(parse('default=["a","b"]')).toEqual(['a', 'b']);
  });

  it('unquotes Go strings and keeps raw strings as written', () => {
    expect(parse('kubebuilder:validation:Pattern="^\\\\d+,x$"')).toBe('^\\d+,x$');
    expect(parse('kubebuilder:validation:Pattern=`^\\d{1,3}$`')).toBe('^\\d{1,3}$');
    expect(parse('kubebuilder:validation:XValidation:rule="self.a == \'x\'",message="must be x"')).toEqual({
      rule: "self.a == 'x'",
      message: 'must be x',
    });
  });

  it('points errors into the marker text', () => {
    const unknownArg = syntaxError('kubebuilder:printcolumn:name=Age,typ=date,JSONPath=.x');
    expect(unknownArg.message).toBe('+kubebuilder:printcolumn has no argument "typ"');
    expect(unknownArg.fix).toBe('did you mean type?');
    expect(unknownArg.offset).toBe('kubebuilder:printcolumn:name=Age,'.length);

    const missing = syntaxError('kubebuilder:rbac:groups=apps,resources=pods');
    expect(missing.message).toBe('+kubebuilder:rbac is missing argument "verbs"');

    const notInt = syntaxError('kubebuilder:validation:MaxLength=6.5');
    expect(notInt.message).toBe('expected an integer, got "6.5"');
    expect(notInt.offset).toBe('kubebuilder:validation:MaxLength='.length);

    expect(syntaxError('kubebuilder:validation:Pattern=^a{1,3}$').message).toBe('unexpected ",3}$" after the value');
    expect(syntaxError('kubebuilder:subresource:status=true').message).toBe('+kubebuilder:subresource:status takes no arguments');
  });

  it('suggests the closest spelling for unknown markers it owns and leaves others alone', () => {
    expect(registry.diagnoseUnknown('kubebuilder:validation:Minimun=1')).toEqual({ owned: true, suggestion: 'kubebuilder:validation:Minimum' });
    expect(registry.diagnoseUnknown('kubebuilder:validation:nullable')).toEqual({ owned: true, suggestion: 'nullable' });
    expect(registry.diagnoseUnknown('optinal')).toEqual({ owned: true, suggestion: 'optional' });
    // operator-sdk's pre-1.0 CSV markers are another tool's; a typo in the current one is opgen's.
    expect(registry.diagnoseUnknown('operator-sdk:gen-csv:customresourcedefinitions.displayName="X"').owned).toBe(false);
    expect(registry.diagnoseUnknown('operator-sdk:csv:customresourcedefinition:displayName="X"')).toEqual({ owned: true, suggestion: 'operator-sdk:csv:customresourcedefinitions' });
    expect(registry.diagnoseUnknown('genclient').owned).toBe(false);
  });
});

describe('scaffold insertion points', () => {
  it('reads +opgen:scaffold:<name> as a known marker, so generators do not call it a typo', () => {
    expect(parse('opgen:scaffold:controllers')).toBe('controllers');
    expect(parse('kubebuilder:scaffold:imports')).toBe('imports');
  });
});

describe('the catalog', () => {
  it('defines every marker issue 3 names, where controller-gen lets it stand', () => {
    const expected: Record<string, string[]> = {
      groupName: ['package'],
      versionName: ['package'],
      'kubebuilder:validation:Optional': ['package', 'field'],
      'kubebuilder:skip': ['package'],
      'kubebuilder:object:root': ['type'],
      'kubebuilder:resource': ['type'],
      'kubebuilder:subresource:status': ['type'],
      'kubebuilder:subresource:scale': ['type'],
      'kubebuilder:printcolumn': ['type'],
      'kubebuilder:storageversion': ['type'],
      'kubebuilder:unservedversion': ['type'],
      'kubebuilder:deprecatedversion': ['type'],
      'kubebuilder:skipversion': ['type'],
      'kubebuilder:selectablefield': ['type'],
      'kubebuilder:metadata': ['type'],
      'kubebuilder:externalDocs': ['field', 'type'],
      'kubebuilder:validation:EmbeddedResource': ['field'],
      'kubebuilder:validation:Schemaless': ['field'],
      'kubebuilder:validation:AtMostOneOf': ['type'],
      'kubebuilder:validation:ExactlyOneOf': ['type'],
      'kubebuilder:validation:AtLeastOneOf': ['type'],
      'kubebuilder:default': ['field'],
      default: ['field'],
      'kubebuilder:example': ['field'],
      'kubebuilder:title': ['field', 'type'],
      nullable: ['field'],
      optional: ['field'],
      required: ['field'],
      listType: ['field', 'type'],
      listMapKey: ['field', 'type'],
      mapType: ['field', 'type'],
      structType: ['field', 'type'],
      'kubebuilder:pruning:PreserveUnknownFields': ['field', 'type'],
      'k8s:immutable': ['field'],
      'kubebuilder:rbac': ['package'],
      'kubebuilder:webhook': ['package'],
    };
    for (const v of ['Minimum', 'Maximum', 'ExclusiveMinimum', 'ExclusiveMaximum', 'MultipleOf', 'MinLength', 'MaxLength', 'Pattern', 'MinItems', 'MaxItems', 'UniqueItems', 'MinProperties', 'MaxProperties', 'Enum', 'Format', 'Type', 'XIntOrString', 'XEmbeddedResource', 'XPreserveUnknownFields', 'XValidation']) {
      expected[`kubebuilder:validation:${v}`] = ['field', 'type'];
      expected[`kubebuilder:validation:items:${v}`] = ['field', 'type'];
    }
    const actual = Object.fromEntries(Object.keys(expected).map((name) => [name, registry.definitionsOf(name).flatMap((d) => d.targets)]));
    expect(actual).toEqual(expected);
    const xv = registry.lookup('kubebuilder:validation:XValidation')!;
    expect(xv.args!.map((a) => a.name)).toEqual(['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf']);
    const webhook = registry.lookup('kubebuilder:webhook')!;
    expect(webhook.args!.map((a) => a.name).sort()).toEqual(
      ['admissionReviewVersions', 'failurePolicy', 'groups', 'matchPolicy', 'mutating', 'name', 'patch', 'path', 'reinvocationPolicy', 'resources', 'serviceName', 'serviceNamespace', 'servicePort', 'sideEffects', 'timeoutSeconds', 'url', 'verbs', 'versions', 'webhookVersions'].sort(),
    );
  });
});
