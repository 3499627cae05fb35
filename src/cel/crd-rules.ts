// Ties the CEL checker to the sources: a problem found in a kind's schema is reported at the
// +kubebuilder:validation:XValidation (or items:XValidation) marker that wrote the rule, with the column inside the rule.
import type { Position } from '../diag/diagnostic.js';
import { OpgenError } from '../diag/diagnostic.js';
import type { CollectedMarker, SourceSet } from '../markers/index.js';
import type { JSONSchemaProps } from '../common/json-schema.js';
import { checkCelRules, type CelCheckOptions, type CelProblem } from './check.js';

/** The markers that write rules: on the field or type itself, and on the items of a list. */
const XVALIDATION = new Set(['kubebuilder:validation:XValidation', 'kubebuilder:validation:items:XValidation']);

export interface CelChecker {
  /** Reports the problems of one kind version's schema (each marker once, however many versions share it). */
  check(schema: JSONSchemaProps, kind: string, kindWhere: Position, errors: OpgenError[]): void;
}

export function celChecker(sources: SourceSet, options: CelCheckOptions = {}): CelChecker {
  let byRule: Map<string, CollectedMarker[]> | undefined;
  const reported = new Set<string>();
  const markersFor = (rule: string): CollectedMarker[] => {
    if (!byRule) {
      byRule = new Map();
      for (const file of sources.files()) {
        for (const info of file.markers.declarations.values()) {
          for (const m of info.markers) {
            if (!XVALIDATION.has(m.definition.name)) continue;
            const r = (m.value as { rule?: string }).rule ?? '';
            byRule.set(r, [...(byRule.get(r) ?? []), m]);
          }
        }
      }
    }
    return byRule.get(rule) ?? [];
  };
  return {
    check(schema, kind, kindWhere, errors) {
      for (const p of checkCelRules(schema, options)) {
        const marker = p.rule ? markersFor(p.rule.rule)[0] : undefined;
        const where = marker ? positionInMarker(marker, p) : kindWhere;
        const at = p.schemaPath === '' ? kind : `${kind}.${p.schemaPath}`;
        const what = p.part === 'messageExpression' ? `CEL messageExpression ${JSON.stringify(p.rule?.messageExpression)}` : p.rule ? `CEL rule ${JSON.stringify(p.rule.rule)}` : 'CEL rules';
        const error = new OpgenError(`${at}: ${what}: ${p.message}`, where, p.fix);
        const key = error.format();
        if (reported.has(key)) continue;
        reported.add(key);
        errors.push(error);
      }
    },
  };
}

/** The marker's position moved to the problem's offset inside the quoted rule (or messageExpression). */
function positionInMarker(m: CollectedMarker, p: CelProblem): Position {
  if (p.offset === undefined || m.where.column === undefined || (p.part !== 'rule' && p.part !== 'messageExpression')) return m.where;
  const arg = new RegExp(`[:,]${p.part}=`).exec(m.text);
  if (!arg) return m.where;
  let i = arg.index + arg[0].length;
  const quote = m.text[i];
  // The marker's text starts after its `+`.
  const lead = m.text.startsWith('+') ? 0 : 1;
  if (quote !== '"' && quote !== '`') return { ...m.where, column: m.where.column + lead + i };
  i++;
  // Walk the quoted text, counting decoded characters, until the offset is reached.
  for (let decoded = 0; decoded < p.offset && i < m.text.length; decoded++) {
    if (quote === '"' && m.text[i] === '\\') i += m.text[i + 1] === 'u' ? 6 : m.text[i + 1] === 'x' ? 4 : 2;
    else i++;
  }
  return { ...m.where, column: m.where.column + lead + i };
}
