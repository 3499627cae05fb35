// The JSON model data/migrate-go prints for a set of Go API packages (see its main.go).

export interface GoMarker {
  /** The marker text after `//`, trimmed: `+kubebuilder:validation:Minimum=0`. */
  text: string;
  /** In the node's doc comment (controller-gen never moves those to the package). */
  fromGodoc: boolean;
  /** file:line:col */
  pos: string;
  /** A `+` line of a block comment: not a marker to controller-gen (a doc comment keeps it as text). */
  inBlock?: boolean;
}

export type GoTypeExpr =
  | { kind: 'ident'; name: string; basic?: boolean; pkg?: string }
  /** `alias` is the name the Go file imports the package under. */
  | { kind: 'named'; pkg: string; name: string; alias?: string }
  | { kind: 'pointer' | 'slice' | 'array'; elem: GoTypeExpr }
  | { kind: 'map'; key: GoTypeExpr; elem: GoTypeExpr }
  | { kind: 'interface' }
  | { kind: 'struct'; text?: string }
  | { kind: 'unsupported'; text: string };

export interface GoField {
  /** The Go field name (the type's name for an embedded field). */
  name: string;
  embedded: boolean;
  hasTag: boolean;
  jsonTag: string;
  /** The description controller-gen makes of the doc comment ('' for none). */
  doc: string;
  markers: GoMarker[];
  type: GoTypeExpr;
  pos: string;
}

export interface GoConstant {
  name: string;
  value: string;
}

export interface GoTypeDecl {
  name: string;
  /** The Go file (base name) declaring it. */
  file: string;
  pos: string;
  doc: string;
  markers: GoMarker[];
  /** `type X = Y` */
  alias: boolean;
  type: GoTypeExpr;
  fields?: GoField[];
  constants?: GoConstant[];
}

export interface GoPackage {
  importPath: string;
  name: string;
  dir: string;
  module: string;
  /** A package named on the command line (its kinds become CRDs). */
  root: boolean;
  standard: boolean;
  markers: GoMarker[];
  types: GoTypeDecl[];
  files: string[];
}

export interface GoModel {
  packages: GoPackage[];
  /** The k8s.io/api version the module builds with ('' when it does not import it). */
  kubernetesApi: string;
}
