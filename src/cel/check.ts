// Checks every x-kubernetes-validations rule of a CRD schema as the API server does when the CRD is
// created (apiextensions validation.go + schema/cel/compilation.go): the rule compiles in the
// Kubernetes CEL environment against the schema it sits on and yields a bool, a messageExpression
// yields a string, oldSelf is only used where old and new values can be correlated, and the
// estimated cost stays under the per-rule (10M) and per-CRD (100M) budgets.
import type { Environment } from '@marcbachmann/cel-js';
import type { JSONSchemaProps, ValidationRule } from '../common/json-schema.js';
import { estimateCost, U64_MAX, type Node } from './cost.js';
import { declTypeOf, MAX_REQUEST_SIZE_BYTES, RESERVED, type DeclType } from './decl-type.js';
import { kubernetesEnvironment, NOT_IN_KUBERNETES, presenceTestsOnAnyOperand } from './library.js';
import { tooNewFor, tooNewMessage } from './versions.js';
import { formatKubeMinor, type KubeMinor } from '../common/kube-version.js';

export const PER_RULE_COST_LIMIT = 10_000_000;
export const PER_CRD_COST_LIMIT = 100_000_000;

export interface CelProblem {
  /** Where the rule sits, as the API server names it: `spec.items[*]` ('' for the root). */
  schemaPath: string;
  /** The index of the rule in that schema's x-kubernetes-validations. */
  index: number;
  /** The rule as it stands in the schema. */
  rule?: ValidationRule;
  /** Which part of the rule is wrong. */
  part: 'rule' | 'messageExpression' | 'message' | 'optionalOldSelf';
  message: string;
  /** Offset of the problem inside the expression, when it is a spot in it. */
  offset?: number;
  fix: string;
}

interface Site {
  schema: JSONSchemaProps;
  path: string;
  isResourceRoot: boolean;
  /** Product of the maxItems/maxProperties above; undefined when some list or map above is unbounded. */
  cardinality: number | undefined;
  /** The first list or map above whose old and new items cannot be paired (oldSelf is refused below it). */
  uncorrelatable?: string;
  unboundedAbove?: { path: string; marker: string };
}

export interface CelCheckOptions {
  /** The oldest Kubernetes the CRD must install on: rules using a library its API server lacks are refused. */
  floor?: KubeMinor;
  /** Says what the floor is and where it comes from, for the message (`PROJECT minKubeVersion is "1.30"`). */
  floorSource?: string;
}

/** Every problem the API server would report for the CEL rules of `root` (a CRD version's openAPIV3Schema). */
export function checkCelRules(root: JSONSchemaProps, options: CelCheckOptions = {}): CelProblem[] {
  const sites: Site[] = [];
  collectSites(root, { schema: root, path: '', isResourceRoot: true, cardinality: 1 }, sites);
  if (sites.length === 0) return [];
  const problems: CelProblem[] = [];
  const costs: Array<{ where: string; cost: number }> = [];
  for (const site of sites) checkSite(site, problems, costs, options);
  const total = costs.reduce((a, c) => Math.min(U64_MAX, a + c.cost), 0);
  // Over the per-CRD budget because one rule is over its own: that rule's error says it all.
  const ruleOverBudget = problems.some((p) => p.message.includes('per-rule budget') || p.message.includes('per-expression budget'));
  if (total > PER_CRD_COST_LIMIT && !ruleOverBudget) {
    const worst = [...costs].sort((a, b) => b.cost - a.cost).slice(0, 3);
    problems.push({
      schemaPath: '',
      index: 0,
      part: 'rule',
      message: `the CEL rules' estimated cost for the whole schema is ${costFactor(total, PER_CRD_COST_LIMIT)} the API server's budget (${PER_CRD_COST_LIMIT}); the most expensive: ${worst.map((w) => `${w.where} (${w.cost})`).join(', ')}`,
      fix: 'bound the lists, maps and strings those rules walk with +kubebuilder:validation:MaxItems, MaxProperties and MaxLength',
    });
  }
  return problems;
}

function collectSites(schema: JSONSchemaProps, site: Site, out: Site[]): void {
  if (schema['x-kubernetes-validations']?.length) out.push(site);
  const childCardinality = (max: number | undefined): number | undefined => (site.cardinality === undefined || max === undefined ? undefined : Math.min(U64_MAX, site.cardinality * Math.max(0, max)));
  if (schema.type === 'object' || schema.properties) {
    // MapIsCorrelatable: granular and atomic objects both pair their fields by name.
    const mapType = schema['x-kubernetes-map-type'];
    const uncorrelatableMap = mapType !== undefined && mapType !== 'granular' && mapType !== 'atomic';
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      collectSites(prop, {
        schema: prop,
        path: site.path === '' ? name : `${site.path}.${name}`,
        isResourceRoot: !!prop['x-kubernetes-embedded-resource'],
        cardinality: site.cardinality,
        uncorrelatable: site.uncorrelatable ?? (uncorrelatableMap ? site.path : undefined),
        ...(site.unboundedAbove ? { unboundedAbove: site.unboundedAbove } : {}),
      }, out);
    }
    const ap = schema.additionalProperties;
    if (ap && typeof ap === 'object') {
      const max = schema.maxProperties;
      const unboundedAbove = site.unboundedAbove ?? (max === undefined ? { path: site.path, marker: '+kubebuilder:validation:MaxProperties' } : undefined);
      collectSites(ap, {
        schema: ap,
        path: `${site.path}[*]`,
        isResourceRoot: !!ap['x-kubernetes-embedded-resource'],
        cardinality: childCardinality(max),
        ...(site.uncorrelatable ? { uncorrelatable: site.uncorrelatable } : {}),
        ...(unboundedAbove ? { unboundedAbove } : {}),
      }, out);
    }
  }
  if (schema.type === 'array' && schema.items) {
    const max = schema.maxItems;
    const unboundedAbove = site.unboundedAbove ?? (max === undefined ? { path: site.path, marker: '+kubebuilder:validation:MaxItems' } : undefined);
    collectSites(schema.items, {
      schema: schema.items,
      path: `${site.path}[*]`,
      isResourceRoot: !!schema.items['x-kubernetes-embedded-resource'],
      cardinality: childCardinality(max),
      uncorrelatable: site.uncorrelatable ?? (schema['x-kubernetes-list-type'] === 'map' ? undefined : site.path),
      ...(unboundedAbove ? { unboundedAbove } : {}),
    }, out);
  }
}

function checkSite(site: Site, problems: CelProblem[], costs: Array<{ where: string; cost: number }>, options: CelCheckOptions): void {
  const rules = site.schema['x-kubernetes-validations']!;
  const where = (i: number) => `${site.path === '' ? '' : `${site.path}: `}rule ${i + 1}`;
  const report = (index: number, part: CelProblem['part'], message: string, fix: string, offset?: number): void => {
    problems.push({ schemaPath: site.path, index, rule: rules[index], part, message, fix, ...(offset !== undefined ? { offset } : {}) });
  };
  // Checks the API server makes before compiling (schema errors stop compilation of this schema's rules).
  let schemaErrors = false;
  rules.forEach((r, i) => {
    const rule = r.rule.trim();
    if (rule === '') {
      report(i, 'rule', 'the rule is empty', 'write a CEL expression');
      schemaErrors = true;
    } else if (/[\r\n]/.test(rule) && !(r.message ?? '').trim()) {
      report(i, 'message', 'a rule with line breaks needs a message', 'add message=...');
      schemaErrors = true;
    }
    if (r.messageExpression !== undefined && r.messageExpression !== '' && r.messageExpression.trim() === '') {
      report(i, 'messageExpression', 'the messageExpression is blank', 'remove messageExpression or write a CEL expression');
      schemaErrors = true;
    }
  });
  if (schemaErrors) return;
  const decl = declTypeOf(site.schema, site.isResourceRoot);
  if (!decl) return; // the API server reports an internal error here; opgen's schemas always have a type
  const envs = environmentsFor(decl);
  /** Reports a part of the expression older API servers lack (the project's floor); true when it did. */
  const tooNew = (i: number, part: 'rule' | 'messageExpression', ast: Node): boolean => {
    if (!options.floor) return false;
    const t = tooNewFor(ast, options.floor);
    if (!t) return false;
    const { message, fix } = tooNewMessage(t, options.floorSource ?? `the oldest Kubernetes supported is ${formatKubeMinor(options.floor)}`);
    report(i, part, `CEL: ${message}`, fix, t.offset);
    return true;
  };
  const maxCardinality = site.cardinality ?? Math.floor(MAX_REQUEST_SIZE_BYTES / (decl.minSerializedSize + 1));
  rules.forEach((r: ValidationRule, i) => {
    const env = r.optionalOldSelf ? envs.optional : envs.plain;
    const compiled = compile(env, r.rule);
    if ('error' in compiled) {
      report(i, 'rule', compiled.error, compiled.fix, compiled.offset);
      return;
    }
    if (compiled.type !== 'bool') {
      report(i, 'rule', `the rule evaluates to ${compiled.type}; it must evaluate to a bool`, 'compare the value, e.g. `self.x == ...`', 0);
      return;
    }
    if (tooNew(i, 'rule', compiled.ast)) return;
    const baseCost = estimateCost(compiled.ast, decl);
    const cost = baseCost === 0 ? 0 : Math.min(U64_MAX, baseCost * maxCardinality);
    costs.push({ where: where(i), cost });
    if (cost > PER_RULE_COST_LIMIT) {
      report(i, 'rule', `the estimated cost ${costText(cost)} is ${costFactor(cost, PER_RULE_COST_LIMIT)} the API server's per-rule budget (${PER_RULE_COST_LIMIT})`, boundingFix(compiled.ast, decl, site), 0);
    }
    const usesOldSelf = mentions(compiled.ast, 'oldSelf');
    if (usesOldSelf && site.uncorrelatable !== undefined) {
      report(i, 'rule', `oldSelf cannot be used here: the items of ${site.uncorrelatable === '' ? 'the root' : site.uncorrelatable} cannot be paired between the old and the new object`, site.uncorrelatable === '' ? 'move the rule up' : `make ${site.uncorrelatable} a map list (+listType=map with +listMapKey) or move the rule above it`, 0);
    } else if (!usesOldSelf && r.optionalOldSelf !== undefined) {
      report(i, 'optionalOldSelf', 'optionalOldSelf is set but the rule does not use oldSelf', 'drop optionalOldSelf');
    }
    if (r.messageExpression) {
      const m = compile(env, r.messageExpression);
      if ('error' in m) {
        report(i, 'messageExpression', m.error, m.fix, m.offset);
        return;
      }
      if (m.type !== 'string') {
        report(i, 'messageExpression', `the messageExpression evaluates to ${m.type}; it must evaluate to a string`, 'wrap it in string(...) or build a string', 0);
        return;
      }
      if (tooNew(i, 'messageExpression', m.ast)) return;
      const mCost = estimateCost(m.ast, decl);
      costs.push({ where: `${where(i)} messageExpression`, cost: mCost });
      if (mCost > PER_RULE_COST_LIMIT) report(i, 'messageExpression', `the estimated cost ${costText(mCost)} is ${costFactor(mCost, PER_RULE_COST_LIMIT)} the per-expression budget (${PER_RULE_COST_LIMIT})`, boundingFix(m.ast, decl, site), 0);
    }
  });
}

const costText = (c: number): string => (c >= U64_MAX ? 'unbounded' : String(c));

function costFactor(cost: number, limit: number): string {
  const f = cost / limit;
  if (f > 100) return 'more than 100x';
  return `${f < 1.5 ? f.toFixed(2) : f.toFixed(1)}x`;
}

/** Names the unbounded lists, maps and strings the rule walks and the markers that would bound them. */
function boundingFix(ast: Node, decl: DeclType, site: Site): string {
  const found = new Map<string, string>();
  const visit = (path: string[], d: DeclType | undefined): void => {
    if (!d) return;
    if (d.unbounded) found.set(d.unbounded.path, d.unbounded.marker);
    for (const [, f] of d.fields ?? []) visit(path, f);
    if (d.elem) visit(path, d.elem);
  };
  // Only what the rule reaches: fields selected from self (and their contents).
  for (const sel of selections(ast)) {
    let d: DeclType | undefined = decl;
    for (const step of sel) d = step === '*' ? d?.elem : d?.fields?.get(step);
    visit(sel, d);
  }
  if (decl.unbounded) found.set(decl.unbounded.path, decl.unbounded.marker);
  const parts = [...found].slice(0, 3).map(([p, m]) => `${m} on ${p.replace(/^self\.?/, 'self.').replace(/\.$/, '')}`);
  if (site.cardinality === undefined && site.unboundedAbove) parts.push(`${site.unboundedAbove.marker} on ${site.unboundedAbove.path || 'the root'} (the rule runs once per item)`);
  return parts.length > 0 ? `bound what the rule walks: ${parts.join('; ')}` : 'simplify the rule';
}

/** Field paths selected from self/oldSelf in the expression (`self.a.b` → [a, b]). */
function selections(ast: Node): string[][] {
  const out: string[][] = [];
  const walk = (n: unknown): void => {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      n.forEach(walk);
      return;
    }
    const node = n as Node;
    if (typeof node.op !== 'string') return;
    if (node.op === '.' || node.op === '.?') {
      const chain: string[] = [];
      let cur: Node = node;
      while (cur.op === '.' || cur.op === '.?') {
        const [operand, field] = cur.args as [Node, string];
        chain.unshift(field);
        cur = operand;
      }
      if (cur.op === 'id' && (cur.args === 'self' || cur.args === 'oldSelf')) out.push(chain);
      else walk(cur);
      return;
    }
    if (node.op === 'id' && (node.args === 'self' || node.args === 'oldSelf')) out.push([]);
    walk(node.args);
  };
  walk(ast);
  return out;
}

function mentions(ast: Node, name: string): boolean {
  let found = false;
  const walk = (n: unknown): void => {
    if (found || !n || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(walk);
    const node = n as Node;
    if (node.op === 'id' && node.args === name) found = true;
    else if (typeof node.op === 'string') walk(node.args);
  };
  walk(ast);
  return found;
}

interface Compiled {
  ast: Node;
  type: string;
}
interface CompileError {
  error: string;
  fix: string;
  offset?: number;
}

function compile(env: Environment, expression: string): Compiled | CompileError {
  let parsed;
  try {
    parsed = env.parse(expression);
  } catch (e) {
    return celError(e, 'fix the syntax');
  }
  presenceTestsOnAnyOperand(parsed.ast);
  const checked = parsed.check();
  if (!checked.valid) return celError(checked.error, 'fix the expression against the fields of the schema it sits on');
  const ast = parsed.ast as unknown as Node;
  const extra = kubernetesOnly(ast);
  if (extra) return extra;
  return { ast, type: String(checked.type) };
}

function celError(e: unknown, fix: string): CompileError {
  const err = e as { message?: string; node?: { start?: number }; range?: { start?: number } };
  const message = (err.message ?? String(e)).split('\n')[0]!.trim();
  const offset = err.node?.start ?? err.range?.start;
  const unknownFn = /found no matching overload for '([^']+)'/.exec(message);
  return {
    error: `CEL: ${message}`,
    fix: unknownFn ? `check the function's name and argument types; the Kubernetes CEL libraries are listed at https://kubernetes.io/docs/reference/using-api/cel/` : /No such key: (\S+)/.test(message) ? 'name a field of this schema (check the spelling and the JSON name)' : fix,
    ...(offset !== undefined ? { offset } : {}),
  };
}

/** What cel-js accepts but the API server's environment refuses: functions it lacks and literals it validates. */
function kubernetesOnly(ast: Node): CompileError | undefined {
  let problem: CompileError | undefined;
  const walk = (n: unknown): void => {
    if (problem || !n || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(walk);
    const node = n as Node & { start?: number };
    if (typeof node.op !== 'string') return;
    if (node.op === 'rcall') {
      const [name, receiver, args] = node.args as [string, Node, Node[]];
      const onBytes = receiver.checkedType?.name === 'bytes';
      const onCel = receiver.op === 'id' && receiver.args === 'cel';
      if ((name === 'bind' && onCel) || (onBytes && NOT_IN_KUBERNETES.has(name) && name !== 'bind')) {
        problem = { error: `CEL: ${NOT_IN_KUBERNETES.get(name)}`, fix: 'use only functions of the Kubernetes CEL environment', ...(node.start !== undefined ? { offset: node.start } : {}) };
        return;
      }
      if ((name === 'matches' || name === 'find' || name === 'findAll') && args[0]?.op === 'value' && typeof args[0].args === 'string') {
        const bad = regexProblem(args[0].args);
        if (bad) problem = { error: `CEL: invalid regular expression ${JSON.stringify(args[0].args)}: ${bad}`, fix: 'write an RE2 regular expression', ...((args[0] as { start?: number }).start !== undefined ? { offset: (args[0] as { start?: number }).start } : {}) };
      }
    }
    if (node.op === 'call') {
      const [name, args] = node.args as [string, Node[]];
      if ((name === 'duration' || name === 'timestamp') && args[0]?.op === 'value' && typeof args[0].args === 'string') {
        const ok = name === 'duration' ? /^-?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$|^0$/.test(args[0].args) : !Number.isNaN(Date.parse(args[0].args)) && /^\d{4}-\d{2}-\d{2}T/.test(args[0].args);
        if (!ok) problem = { error: `CEL: invalid ${name} literal ${JSON.stringify(args[0].args)}`, fix: name === 'duration' ? 'write a duration like "1h30m"' : 'write an RFC 3339 timestamp like "2024-01-01T00:00:00Z"', ...((args[0] as { start?: number }).start !== undefined ? { offset: (args[0] as { start?: number }).start } : {}) };
      }
    }
    walk(node.args);
  };
  walk(ast);
  return problem;
}

/** Why `pattern` is not an RE2 expression (approximated with JavaScript's parser plus RE2's missing features). */
function regexProblem(pattern: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern)) return 'RE2 has no lookaround';
  if (/\\[1-9]/.test(pattern)) return 'RE2 has no backreferences';
  try {
    // RE2's flag groups stand anywhere, as (?flags) or (?flags:re); JavaScript's parser knows neither.
    new RegExp(pattern.replace(/\(\?P?<(\w+)>/g, '(?<$1>').replace(/\(\?[imsU]*(?:-[imsU]*)?\)/g, '').replace(/\(\?[imsU]*(?:-[imsU]*)?:/g, '(?:'));
  } catch (e) {
    return (e as Error).message.replace(/^Invalid regular expression: /, '');
  }
  return undefined;
}

interface SiteEnvironments {
  plain: Environment;
  optional: Environment;
}

/** Environments with `self`/`oldSelf` typed by `decl`; object types get fresh names (as the API server's selfType<n>). */
function environmentsFor(decl: DeclType): SiteEnvironments {
  const env = kubernetesEnvironment().clone();
  let n = 0;
  const nameOf = (d: DeclType): string => {
    if (d.kind === 'object') {
      const fields: Record<string, string> = {};
      for (const [name, f] of d.fields!) {
        fields[name] = nameOf(f);
        // Since 1.31 the API server also finds `self.namespace` under `__namespace__` (versions.ts gates it).
        const keyword = /^__(\w+)__$/.exec(name)?.[1];
        if (keyword !== undefined && RESERVED.has(keyword)) fields[keyword] = fields[name]!;
      }
      const typeName = `Object${n++}`;
      env.registerType(typeName, { ctor: class {}, fields } as never);
      env.registerOperator(`${typeName} == ${typeName}`, () => true);
      // cel-go keeps the legacy checker's nullability: objects (struct kind) compare with null.
      env.registerOperator(`${typeName} == null`, () => true);
      return typeName;
    }
    if (d.kind === 'list') return `list<${nameOf(d.elem!)}>`;
    if (d.kind === 'map') return `map<string, ${nameOf(d.elem!)}>`;
    return d.cel;
  };
  const selfType = nameOf(decl);
  env.registerVariable('self', selfType);
  const optional = env.clone();
  const plain = env.clone();
  plain.registerVariable('oldSelf', selfType);
  optional.registerVariable('oldSelf', `optional<${selfType}>`);
  return { plain, optional };
}
