// `opgen markers`: the catalog printed from the same registry the parser uses.
import { describeArgType, type MarkerDefinition } from './definition.js';
import type { Registry } from './registry.js';

function usage(def: MarkerDefinition): string {
  switch (def.shape) {
    case 'flag':
      return `+${def.name}`;
    case 'value':
      return `+${def.name}=<${describeArgType(def.value!)}>`;
    case 'anchor':
      return `+${def.name}:<name>`;
    case 'struct':
      return `+${def.name}:${(def.args ?? []).map((a) => (a.optional ? `[${a.name}=…]` : `${a.name}=…`)).join(',')}`;
  }
}

/** One block per marker: usage, where it may stand, help, and each argument. */
export function formatCatalog(registry: Registry): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const def of registry.all()) {
    if (seen.has(def.name)) continue;
    seen.add(def.name);
    const targets = registry.definitionsOf(def.name).flatMap((d) => d.targets);
    lines.push(usage(def));
    lines.push(`    on: ${targets.map((t) => (t === 'package' ? 'folder (any file of the API version)' : t)).join(', ')}`);
    lines.push(`    ${def.help}${def.deprecated ? ` (deprecated: ${def.deprecated})` : ''}`);
    for (const a of def.args ?? []) {
      lines.push(`    ${a.name}${a.optional ? ' (optional)' : ''}: ${describeArgType(a.type)} — ${a.help}`);
    }
  }
  return lines;
}
