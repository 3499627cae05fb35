// The registry of marker definitions, keyed by target as controller-tools keys its registry: the same
// name may be defined once per target. Created explicitly and filled by each generator (no import side effects).
import { closest } from './grammar.js';
import type { MarkerDefinition, Target } from './definition.js';

/** Prefixes opgen owns: an unknown marker under one of these is a typo, not another tool's marker. */
const OWNED_PREFIXES = ['kubebuilder:', 'opgen:', 'operator-sdk:csv:'];

export class Registry {
  private readonly byTarget = new Map<Target, Map<string, MarkerDefinition>>([
    ['package', new Map()],
    ['type', new Map()],
    ['field', new Map()],
  ]);
  private readonly byName = new Map<string, MarkerDefinition[]>();

  define(def: MarkerDefinition): void {
    for (const target of def.targets) {
      const map = this.byTarget.get(target)!;
      if (map.has(def.name)) throw new Error(`marker +${def.name} is already defined for ${target}s`);
      map.set(def.name, def);
    }
    this.byName.set(def.name, [...(this.byName.get(def.name) ?? []), def]);
  }

  /** The definition of `name` for `target`, or for any target when none is given. */
  lookup(name: string, target?: Target): MarkerDefinition | undefined {
    if (target) return this.byTarget.get(target)!.get(name);
    return this.byName.get(name)?.[0];
  }

  /** Every definition of `name`, one per target it was defined for. */
  definitionsOf(name: string): readonly MarkerDefinition[] {
    return this.byName.get(name) ?? [];
  }

  all(): MarkerDefinition[] {
    return [...this.byName.values()].flat().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Whether an unrecognised marker name belongs to opgen (and so is a typo worth an error),
   * and the closest defined spelling.
   */
  diagnoseUnknown(name: string): { owned: boolean; suggestion?: string } {
    const names = [...this.byName.keys()];
    const head = name.split('=')[0]!;
    const owned = OWNED_PREFIXES.some((p) => head.startsWith(p));
    // Same name in another case (`kubebuilder:validation:minimum`), or same last word (`validation:nullable`).
    const exact = names.find((n) => n.toLowerCase() === head.toLowerCase());
    const last = head.slice(head.lastIndexOf(':') + 1).toLowerCase();
    const sameLast = names.find((n) => n.slice(n.lastIndexOf(':') + 1).toLowerCase() === last);
    const near = closest(head, names);
    const suggestion = exact ?? (owned ? sameLast ?? near : near);
    if (owned) return { owned, suggestion };
    // A bare marker is ours only when it reads as a typo of one of our bare markers (`+nulable`).
    const bare = !head.includes(':');
    const bareNear = bare ? closest(head, names.filter((n) => !n.includes(':'))) : undefined;
    const k8sNear = head.startsWith('k8s:') ? closest(head, names.filter((n) => n.startsWith('k8s:'))) : undefined;
    if (bareNear) return { owned: true, suggestion: bareNear };
    if (k8sNear) return { owned: true, suggestion: k8sNear };
    return { owned: false };
  }
}

export function createRegistry(): Registry {
  return new Registry();
}
