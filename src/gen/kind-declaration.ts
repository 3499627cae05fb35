// The CRD's scope and plural come from the markers; the client, cache and controller builder take them
// from the kind's runtime declaration (`export const X = GroupVersion.kind<X>('X', { plural, namespaced })`).
// A kubebuilder user changes only the marker (Go has nothing else to change), and the operator then sends
// namespaced requests for a cluster-scoped kind, or asks for a plural the API server does not serve.
import type { ts as TS } from 'ts-morph';
import type { GeneratedCrd } from '../crd/index.js';

interface CrdFacts {
  kind: string;
  plural: string;
  scope: string;
}

function factsOf(crd: Record<string, unknown>): CrdFacts | undefined {
  const spec = crd.spec as { scope?: string; names?: { kind?: string; plural?: string } } | undefined;
  if (!spec?.names?.kind || !spec.names.plural) return undefined;
  return { kind: spec.names.kind, plural: spec.names.plural, scope: spec.scope ?? 'Namespaced' };
}

/** Warns for each `.kind('Kind', { plural, namespaced })` declaration that disagrees with its CRD. */
export function warnKindDeclarationMismatches(ts: typeof TS, crds: GeneratedCrd[], out: (line: string) => void): void {
  for (const c of crds) {
    const facts = factsOf(c.crd);
    if (!facts) continue;
    for (const file of c.builtFrom) {
      const init = file.constants.get(facts.kind)?.initializer;
      if (!init || !ts.isCallExpression(init) || !ts.isPropertyAccessExpression(init.expression) || init.expression.name.text !== 'kind') continue;
      const [name, options] = init.arguments;
      if (!name || !ts.isStringLiteralLike(name) || name.text !== facts.kind || !options || !ts.isObjectLiteralExpression(options)) continue;
      for (const p of options.properties) {
        if (!ts.isPropertyAssignment(p) || !ts.isIdentifier(p.name)) continue;
        const pos = file.sf.getLineAndCharacterOfPosition(p.getStart(file.sf));
        const at = `${file.display}:${pos.line + 1}:${pos.character + 1}`;
        if (p.name.text === 'namespaced' && (p.initializer.kind === ts.SyntaxKind.TrueKeyword || p.initializer.kind === ts.SyntaxKind.FalseKeyword)) {
          const namespaced = p.initializer.kind === ts.SyntaxKind.TrueKeyword;
          if (namespaced !== (facts.scope === 'Namespaced')) {
            out(
              `warning: ${at}: ${facts.kind} is declared namespaced: ${namespaced}, but its CRD is ${facts.scope === 'Namespaced' ? 'namespaced' : 'cluster-scoped'} (+kubebuilder:resource:scope=${facts.scope}): the client would send requests the API server does not serve (set namespaced: ${!namespaced}, or change the marker)`,
            );
          }
        } else if (p.name.text === 'plural' && ts.isStringLiteralLike(p.initializer) && p.initializer.text !== facts.plural) {
          out(
            `warning: ${at}: ${facts.kind} is declared with plural '${p.initializer.text}', but its CRD serves '${facts.plural}' (+kubebuilder:resource:path): the client would ask for a resource that does not exist (set plural: '${facts.plural}', or change the marker)`,
          );
        }
      }
    }
  }
}
