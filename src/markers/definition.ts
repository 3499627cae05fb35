// What a marker is: its name, where it may stand, the shape of its arguments and its help.
// Definitions are plain data; the parser reads them, the catalog prints them.

/** Where a marker may stand: a folder (API version), a type (interface/alias/enum) or a field (property). */
export type Target = 'package' | 'type' | 'field';

/** The type of one marker argument, as its spelling is read. */
export type ArgType =
  | { kind: 'string' }
  | { kind: 'int' }
  | { kind: 'number' }
  | { kind: 'bool' }
  /** typed by its spelling: quoted → string, `{k: v}` → map, `{a,b}`/`a;b` → list, true/false, numbers, else string */
  | { kind: 'any' }
  /** the rest of the marker, strictly as JSON (`+default=`) */
  | { kind: 'json' }
  | { kind: 'list'; of: ArgType }
  | { kind: 'map'; of: ArgType };

export interface ArgSpec {
  name: string;
  type: ArgType;
  optional?: boolean;
  help: string;
}

export interface MarkerDefinition {
  /** Full name without the leading `+`, e.g. `kubebuilder:validation:Minimum`. */
  name: string;
  targets: readonly Target[];
  /**
   * `flag`: written bare (`+optional`); `value`: one anonymous value (`+groupName=x`);
   * `struct`: named arguments (`+kubebuilder:printcolumn:name=...,type=...`);
   * `anchor`: a name segment after the marker (`+opgen:scaffold:imports`), read as a string.
   */
  shape: 'flag' | 'value' | 'struct' | 'anchor';
  /** For `value` markers: the value's type. */
  value?: ArgType;
  /** For `struct` markers. */
  args?: readonly ArgSpec[];
  help: string;
  /** A marker kept for compatibility; the catalog names its replacement. */
  deprecated?: string;
}

export const argTypes = {
  string: { kind: 'string' },
  int: { kind: 'int' },
  number: { kind: 'number' },
  bool: { kind: 'bool' },
  any: { kind: 'any' },
  json: { kind: 'json' },
  stringList: { kind: 'list', of: { kind: 'string' } },
} as const satisfies Record<string, ArgType>;

/**
 * A `json` value written `ref(...)`: Kubernetes declarative defaulting's reference to a Go constant. It
 * has no JSON value here; controller-gen ignores it (writes no default), and so does opgen.
 */
export class JsonRef {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

/** How an argument type is written in help text. */
export function describeArgType(t: ArgType): string {
  switch (t.kind) {
    case 'list':
      return `list of ${describeArgType(t.of)} ({a,b} or a;b)`;
    case 'map':
      return `map of ${describeArgType(t.of)} ({k: v})`;
    case 'json':
      return 'JSON (or ref(...), which writes nothing)';
    case 'any':
      return 'any value (typed by its spelling)';
    case 'int':
      return 'integer';
    default:
      return t.kind;
  }
}
