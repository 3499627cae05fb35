// Markers that change a schema. Each carries its own behaviour (`apply`) and priority, so the schema
// builder only sorts and applies them; adding a marker means adding an entry here.
import { JsonRef, argTypes, type ArgType, type MarkerDefinition, type Target } from '../../markers/index.js';
import type { JSONSchemaProps, ValidationRule } from '../../common/json-schema.js';

/** Thrown by `apply` when a marker does not fit the schema; the builder adds file:line:col and the path. */
export class MarkerApplyError extends Error {
  constructor(
    message: string,
    readonly fix?: string,
  ) {
    super(message);
  }
}

export interface ApplyContext {
  /** The schema's type when the schema itself is a reference layer (a named type's field). */
  typeHint?: string;
  /** Whether the schema is int-or-string (a Quantity/IntOrString), where string rules also apply. */
  intOrStringHint?: boolean;
  /**
   * The layer stands for a Go struct type (a runtime known type such as Time, or a Kubernetes model):
   * controller-gen sees a bare $ref there, whatever the type's JSON schema type is.
   */
  structRef?: boolean;
}

export interface SchemaMarker {
  definition: MarkerDefinition;
  /** Lower runs first (controller-gen: Type, XIntOrString, listType, +default at 9; the rest at 10; oneOf 11-13). */
  priority: number;
  apply(schema: JSONSchemaProps, value: unknown, ctx: ApplyContext): void;
}

const FIELD_OR_TYPE: Target[] = ['field', 'type'];

function typeOf(schema: JSONSchemaProps, ctx: ApplyContext): string | undefined {
  return schema.type ?? ctx.typeHint;
}

function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

function need(schema: JSONSchemaProps, ctx: ApplyContext, types: string[], marker: string, fix: string): void {
  const t = typeOf(schema, ctx);
  const intOrString = schema['x-kubernetes-int-or-string'] || ctx.intOrStringHint;
  if (types.includes('string') && intOrString) return;
  if (!t || !types.includes(t)) {
    throw new MarkerApplyError(`+${marker} applies to ${types.join(' or ')} schemas, not ${t ? article(t) : 'an untyped schema'}`, fix);
  }
}

function integral(schema: JSONSchemaProps, ctx: ApplyContext, value: number, marker: string): void {
  if (typeOf(schema, ctx) === 'integer' && !Number.isInteger(value)) {
    throw new MarkerApplyError(`+${marker}=${value} is not a whole number, but the field is an integer`, 'use a whole number');
  }
}

interface ValidationSpec {
  name: string;
  value?: ArgType;
  flag?: boolean;
  help: string;
  priority?: number;
  apply(schema: JSONSchemaProps, value: unknown, ctx: ApplyContext, marker: string): void;
}

const numeric = ['integer', 'number'];

/** A marker that checks the schema's type and copies its value into one schema keyword. */
function keyword(
  name: string,
  key: keyof JSONSchemaProps,
  value: ArgType,
  types: string[],
  help: string,
  fix: string,
): ValidationSpec {
  return {
    name,
    value,
    help,
    apply(s, v, ctx, m) {
      need(s, ctx, types, m, fix);
      if (types === numeric) integral(s, ctx, v as number, m);
      (s as Record<string, unknown>)[key] = v;
    },
  };
}

/** The `kubebuilder:validation:<Name>` markers that also have an `items:` variant. */
const VALIDATIONS: ValidationSpec[] = [
  keyword('Maximum', 'maximum', argTypes.number, numeric, 'maximum value (inclusive unless ExclusiveMaximum)', 'use MaxLength for strings, MaxItems for arrays'),
  keyword('Minimum', 'minimum', argTypes.number, numeric, 'minimum value (inclusive unless ExclusiveMinimum)', 'use MinLength for strings, MinItems for arrays'),
  {
    name: 'ExclusiveMaximum',
    value: argTypes.bool,
    help: 'whether Maximum itself is excluded',
    apply(s, v, ctx, m) {
      need(s, ctx, numeric, m, 'remove it');
      if (v === true) s.exclusiveMaximum = true; // false is the default and controller-gen omits it
    },
  },
  {
    name: 'ExclusiveMinimum',
    value: argTypes.bool,
    help: 'whether Minimum itself is excluded',
    apply(s, v, ctx, m) {
      need(s, ctx, numeric, m, 'remove it');
      if (v === true) s.exclusiveMinimum = true;
    },
  },
  keyword('MultipleOf', 'multipleOf', argTypes.number, numeric, 'the value must be a multiple of this', 'remove it'),
  keyword('MaxLength', 'maxLength', argTypes.int, ['string'], 'maximum string length', 'use Maximum for numbers, MaxItems for arrays'),
  keyword('MinLength', 'minLength', argTypes.int, ['string'], 'minimum string length', 'use Minimum for numbers, MinItems for arrays'),
  keyword('Pattern', 'pattern', argTypes.string, ['string'], 'regular expression the string must match (quote it if it contains , ; or })', 'remove it, or make the field a string'),
  keyword('MaxItems', 'maxItems', argTypes.int, ['array'], 'maximum number of items', 'use MaxProperties for objects, MaxLength for strings'),
  keyword('MinItems', 'minItems', argTypes.int, ['array'], 'minimum number of items', 'use MinProperties for objects, MinLength for strings'),
  {
    name: 'UniqueItems',
    value: argTypes.bool,
    help: 'items must be unique; the API server rejects true, so opgen refuses it',
    apply(s, v, ctx, m) {
      need(s, ctx, ['array'], m, 'remove it');
      if (v === true) {
        throw new MarkerApplyError('+' + m + '=true is rejected by the API server (uniqueItems cannot be true in a CRD)', 'use +listType=set instead');
      }
    },
  },
  keyword('MaxProperties', 'maxProperties', argTypes.int, ['object'], 'maximum number of properties', 'use MaxItems for arrays'),
  keyword('MinProperties', 'minProperties', argTypes.int, ['object'], 'minimum number of properties', 'use MinItems for arrays'),
  {
    name: 'Enum',
    value: { kind: 'list', of: argTypes.any },
    help: 'allowed values, typed by their spelling: Enum=a;b;"c" or Enum={1,2}',
    apply(s, v) {
      s.enum = v as unknown[];
    },
  },
  {
    name: 'Format',
    value: argTypes.string,
    help: 'OpenAPI format, e.g. date-time, uri, email',
    apply(s, v) {
      s.format = v as string;
    },
  },
  {
    name: 'Type',
    value: argTypes.string,
    help: 'overrides the schema type',
    priority: 9,
    apply(s, v) {
      s.type = v as string;
    },
  },
  {
    name: 'XPreserveUnknownFields',
    flag: true,
    help: 'keep fields the schema does not name (deprecated: use +kubebuilder:pruning:PreserveUnknownFields)',
    apply(s) {
      s['x-kubernetes-preserve-unknown-fields'] = true;
    },
  },
  {
    name: 'XEmbeddedResource',
    flag: true,
    help: 'the value is a Kubernetes object with apiVersion, kind and metadata',
    apply(s) {
      s['x-kubernetes-embedded-resource'] = true;
    },
  },
  {
    name: 'XIntOrString',
    flag: true,
    help: 'the value is an integer or a string',
    priority: 9,
    apply(s) {
      s['x-kubernetes-int-or-string'] = true;
    },
  },
  {
    name: 'XValidation',
    help: 'a CEL validation rule',
    apply(s, v) {
      const a = v as Record<string, unknown>;
      const reasons = ['FieldValueRequired', 'FieldValueInvalid', 'FieldValueForbidden', 'FieldValueDuplicate'];
      if (a.reason !== undefined && !reasons.includes(a.reason as string)) {
        throw new MarkerApplyError(`reason "${String(a.reason)}" is not one the API server accepts`, `use one of ${reasons.join(', ')}`);
      }
      if (typeof a.message === 'string' && /[\r\n]/.test(a.message)) {
        throw new MarkerApplyError('the message may not contain line breaks', 'write it on one line');
      }
      const rule: ValidationRule = { rule: a.rule as string };
      if (a.message) rule.message = a.message as string;
      if (a.messageExpression) rule.messageExpression = a.messageExpression as string;
      if (a.reason) rule.reason = a.reason as ValidationRule['reason'];
      if (a.fieldPath) rule.fieldPath = a.fieldPath as string;
      if (a.optionalOldSelf) rule.optionalOldSelf = true;
      s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), rule];
    },
  },
];

const XVALIDATION_ARGS = [
  { name: 'rule', type: argTypes.string, help: 'the CEL expression' },
  { name: 'message', type: argTypes.string, optional: true, help: 'message when the rule fails' },
  { name: 'messageExpression', type: argTypes.string, optional: true, help: 'CEL expression producing the message' },
  { name: 'reason', type: argTypes.string, optional: true, help: 'FieldValueRequired|FieldValueInvalid|FieldValueForbidden|FieldValueDuplicate' },
  { name: 'fieldPath', type: argTypes.string, optional: true, help: 'path of the field the error is reported on' },
  { name: 'optionalOldSelf', type: argTypes.bool, optional: true, help: 'evaluate transition rules even when there is no old value' },
];

function definitionFor(name: string, spec: ValidationSpec, targets: Target[], help: string): MarkerDefinition {
  if (spec.name === 'XValidation') return { name, targets, shape: 'struct', args: XVALIDATION_ARGS, help };
  if (spec.flag) return { name, targets, shape: 'flag', help };
  return { name, targets, shape: 'value', value: spec.value!, help };
}

function oneOf(kind: 'AtMostOneOf' | 'ExactlyOneOf' | 'AtLeastOneOf', priority: number): SchemaMarker {
  const name = `kubebuilder:validation:${kind}`;
  return {
    definition: {
      name,
      targets: ['type'],
      shape: 'value',
      value: argTypes.stringList,
      help: `a CEL rule: ${kind === 'AtMostOneOf' ? 'at most one' : kind === 'ExactlyOneOf' ? 'exactly one' : 'at least one'} of the listed optional fields is set`,
    },
    priority,
    apply(s, v) {
      const fields = v as string[];
      for (const f of fields) {
        if (f.includes('.')) throw new MarkerApplyError(`+${name}: nested path "${f}" is not supported`, 'name fields of this type only');
        if (!s.properties?.[f]) throw new MarkerApplyError(`+${name}: this type has no field "${f}"`, `name fields of this type: ${Object.keys(s.properties ?? {}).join(', ')}`);
        if (s.required?.includes(f)) throw new MarkerApplyError(`+${name}: field "${f}" is required, so the rule could never hold`, `make ${f} optional (${f}?: ...)`);
      }
      const list = `[${fields.join(' ')}]`;
      const rule: ValidationRule =
        kind === 'AtLeastOneOf'
          ? { rule: fields.map((f) => `has(self.${f})`).join('||'), message: `at least one of the fields in ${list} must be set` }
          : {
              rule: `${fields.map((f) => `(has(self.${f})?1:0)`).join('+')} ${kind === 'AtMostOneOf' ? '<=' : '=='} 1`,
              message: kind === 'AtMostOneOf' ? `at most one of the fields in ${list} may be set` : `exactly one of the fields in ${list} must be set`,
            };
      s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), rule];
    },
  };
}

function listType(name: string, help: string): SchemaMarker {
  return {
    definition: { name, targets: FIELD_OR_TYPE, shape: 'value', value: argTypes.string, help },
    priority: 9,
    apply(s, v, ctx) {
      need(s, ctx, ['array'], name, 'use +mapType for objects');
      if (!['atomic', 'set', 'map'].includes(v as string)) throw new MarkerApplyError(`+${name}=${String(v)} is not a list type`, 'use atomic, set or map');
      s['x-kubernetes-list-type'] = v as string;
    },
  };
}

function listMapKey(name: string): SchemaMarker {
  return {
    definition: { name, targets: FIELD_OR_TYPE, shape: 'value', value: argTypes.string, help: 'a key of a +listType=map list (repeat for several keys)' },
    priority: 10,
    apply(s, v, ctx) {
      need(s, ctx, ['array'], name, 'remove it');
      if (s['x-kubernetes-list-type'] !== 'map') throw new MarkerApplyError(`+${name} needs +listType=map on the same field`, 'add +listType=map');
      s['x-kubernetes-list-map-keys'] = [...(s['x-kubernetes-list-map-keys'] ?? []), v as string];
    },
  };
}

function flagMarker(name: string, targets: Target[], help: string, apply: (s: JSONSchemaProps) => void): SchemaMarker {
  return { definition: { name, targets, shape: 'flag', help }, priority: 10, apply };
}

/** Every schema marker, in catalog order. */
export function schemaMarkers(): SchemaMarker[] {
  const out: SchemaMarker[] = [];
  for (const spec of VALIDATIONS) {
    const name = `kubebuilder:validation:${spec.name}`;
    out.push({
      definition: definitionFor(name, spec, FIELD_OR_TYPE, spec.help),
      priority: spec.priority ?? 10,
      apply: (s, v, ctx) => spec.apply(s, v, ctx, name),
    });
    const itemsName = `kubebuilder:validation:items:${spec.name}`;
    out.push({
      definition: definitionFor(itemsName, spec, FIELD_OR_TYPE, `${spec.help}, applied to each item of an array`),
      // items: markers run after all others, as in controller-gen
      priority: 100 + (spec.priority ?? 10),
      apply(s, v, ctx) {
        const t = typeOf(s, ctx);
        if (t !== 'array' || !s.items) {
          throw new MarkerApplyError(`+${itemsName} applies to arrays, not ${t ? article(t) : 'an untyped schema'}`, `use +kubebuilder:validation:${spec.name}`);
        }
        spec.apply(s.items, v, {}, itemsName);
      },
    });
  }
  // Kubernetes declarative validation's spellings of three of them (field only, as in controller-gen).
  for (const [alias, of] of [
    ['k8s:maxItems', 'MaxItems'],
    ['k8s:minimum', 'Minimum'],
    ['k8s:maximum', 'Maximum'],
  ] as const) {
    const spec = VALIDATIONS.find((v) => v.name === of)!;
    out.push({ definition: definitionFor(alias, spec, ['field'], `alias of +kubebuilder:validation:${of}`), priority: 10, apply: (s, v, ctx) => spec.apply(s, v, ctx, alias) });
  }
  out.push(
    flagMarker('kubebuilder:validation:EmbeddedResource', ['field'], 'alias of XEmbeddedResource', (s) => {
      s['x-kubernetes-embedded-resource'] = true;
    }),
    oneOf('AtMostOneOf', 11),
    oneOf('ExactlyOneOf', 12),
    oneOf('AtLeastOneOf', 13),
    flagMarker('nullable', ['field'], 'the field may be null', (s) => {
      s.nullable = true;
    }),
    {
      definition: { name: 'kubebuilder:default', targets: ['field'], shape: 'value', value: argTypes.any, help: 'default value in marker syntax: 3, "x", {a,b}, {k: v}; {} on an array is []' },
      priority: 10,
      apply(s, v, ctx) {
        const t = typeOf(s, ctx);
        s.default = t === 'array' && v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 ? [] : v;
      },
    },
    {
      definition: { name: 'default', targets: ['field'], shape: 'value', value: argTypes.json, help: 'default value as JSON (+kubebuilder:default wins when both are given); ref(...) and null write none, as in controller-gen' },
      priority: 9,
      apply(s, v) {
        // controller-gen applies only a non-nil value: `ref(...)` (a Go constant) and `null` leave no default.
        if (v instanceof JsonRef || v === null) return;
        s.default = v;
      },
    },
    {
      definition: { name: 'kubebuilder:example', targets: ['field'], shape: 'value', value: argTypes.any, help: 'example value in marker syntax' },
      priority: 10,
      apply(s, v) {
        s.example = v;
      },
    },
    {
      definition: { name: 'kubebuilder:title', targets: FIELD_OR_TYPE, shape: 'value', value: argTypes.any, help: 'schema title (a string)' },
      priority: 10,
      apply(s, v) {
        if (typeof v !== 'string') throw new MarkerApplyError(`+kubebuilder:title needs a string, got ${JSON.stringify(v)}`, 'quote it: +kubebuilder:title="..."');
        s.title = v;
      },
    },
    flagMarker('kubebuilder:pruning:PreserveUnknownFields', FIELD_OR_TYPE, 'keep fields the schema does not name', (s) => {
      s['x-kubernetes-preserve-unknown-fields'] = true;
    }),
    listType('listType', 'atomic, set or map: how server-side apply merges this list'),
    listType('k8s:listType', 'alias of +listType'),
    listMapKey('listMapKey'),
    listMapKey('k8s:listMapKey'),
    {
      definition: { name: 'mapType', targets: FIELD_OR_TYPE, shape: 'value', value: argTypes.string, help: 'granular or atomic: how server-side apply merges this map' },
      priority: 10,
      apply(s, v, ctx) {
        need(s, ctx, ['object'], 'mapType', 'use +listType for arrays');
        if (!['granular', 'atomic'].includes(v as string)) throw new MarkerApplyError(`+mapType=${String(v)} is not a map type`, 'use granular or atomic');
        s['x-kubernetes-map-type'] = v as string;
      },
    },
    {
      definition: { name: 'structType', targets: FIELD_OR_TYPE, shape: 'value', value: argTypes.string, help: 'granular or atomic: how server-side apply merges this object' },
      priority: 10,
      apply(s, v, ctx) {
        const t = typeOf(s, ctx);
        if (t && t !== 'object') throw new MarkerApplyError(`+structType applies to objects, not ${article(t)}`, 'remove it');
        if (!['granular', 'atomic'].includes(v as string)) throw new MarkerApplyError(`+structType=${String(v)} is not a struct type`, 'use granular or atomic');
        s['x-kubernetes-map-type'] = v as string;
      },
    },
    {
      // controller-gen v0.22+: required, and at least one character, item or property unless a marker
      // already says how many (an explicit MinLength wins whichever runs first, so it runs last here).
      definition: { name: 'k8s:required', targets: ['field'], shape: 'flag', help: 'the field is required, and not empty: minLength, minItems or minProperties 1 unless set' },
      priority: 10.5,
      apply(s, _v, ctx) {
        const t = ctx.structRef ? undefined : typeOf(s, ctx);
        if (t === 'string') s.minLength ??= 1;
        else if (t === 'array') s.minItems ??= 1;
        else if (t === 'object' || ctx.structRef) s.minProperties ??= 1;
      },
    },
    // The values are the folder's string constants of the type: the schema builder fills them in.
    flagMarker('k8s:enum', ['type'], 'a string type whose values are the string constants declared with it in its folder', () => {}),
    flagMarker('k8s:immutable', ['field'], 'the field cannot change once set (CEL self == oldSelf)', (s) => {
      s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), { message: 'field is immutable', rule: 'self == oldSelf' }];
    }),
    {
      definition: {
        name: 'kubebuilder:externalDocs',
        targets: FIELD_OR_TYPE,
        shape: 'struct',
        args: [
          { name: 'url', type: argTypes.string, optional: true, help: 'absolute URL' },
          { name: 'description', type: argTypes.string, optional: true, help: 'link text' },
        ],
        help: 'a link to further documentation',
      },
      priority: 10,
      apply(s, v) {
        const a = v as { url?: string; description?: string };
        if (a.url !== undefined && !/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(a.url)) throw new MarkerApplyError(`externalDocs url "${a.url}" is not an absolute URL`, 'write https://...');
        s.externalDocs = { ...(a.description ? { description: a.description } : {}), ...(a.url ? { url: a.url } : {}) };
      },
    },
  );
  return out;
}
