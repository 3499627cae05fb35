// `opgen bundle validate --olm-v1`: the registry+v1 checks `bundle validate` runs, then the rules OLM v1
// adds (lint.ts). One line per problem, errors exit 1.
import { OpgenError } from '../diag/diagnostic.js';
import { checkDns1123Label } from '../naming/validate.js';
import type { CommandContext } from '../common/command-context.js';
import { WEBHOOK_PROVIDERS, type WebhookProvider } from './lint.js';

export interface OlmV1ValidateOptions {
  dir: string;
  selectOptional?: string;
  watchNamespace?: string;
  installNamespace?: string;
  webhookProvider?: string;
}

export async function validateOlmV1Command(ctx: CommandContext, o: OlmV1ValidateOptions): Promise<number> {
  for (const [flag, ns] of [['--watch-namespace', o.watchNamespace], ['--install-namespace', o.installNamespace]] as const) {
    const bad = ns === undefined || ns === '' ? undefined : checkDns1123Label(ns);
    if (bad) throw new OpgenError(`namespace '${ns}' ${bad}`, { flag }, 'pass a namespace name');
  }
  if (o.webhookProvider !== undefined && !(WEBHOOK_PROVIDERS as readonly string[]).includes(o.webhookProvider)) {
    throw new OpgenError(`unknown webhook provider '${o.webhookProvider}'`, { flag: '--webhook-provider' }, `use ${WEBHOOK_PROVIDERS.join(' or ')}`);
  }
  if (o.selectOptional !== undefined && o.selectOptional !== 'suite=operatorframework') {
    throw new OpgenError(`unknown selector '${o.selectOptional}'`, { flag: '--select-optional' }, 'use --select-optional suite=operatorframework');
  }
  const { validateBundleDir, formatProblem } = await import('../olm/validate.js');
  const { lintOlmV1 } = await import('./lint.js');
  // The registry+v1 checks `bundle validate` runs, then OLM v1's (marked [olm-v1 <check>]).
  const base = await validateBundleDir(ctx.cwd, o.dir, { optional: o.selectOptional === undefined ? undefined : 'operatorframework' });
  for (const p of base) (p.level === 'error' ? ctx.err : ctx.out)(formatProblem(p));
  const v1 = await lintOlmV1(ctx.cwd, o.dir, {
    watchNamespace: o.watchNamespace,
    installNamespace: o.installNamespace,
    webhookProvider: o.webhookProvider as WebhookProvider | undefined,
  });
  for (const p of v1) (p.level === 'error' ? ctx.err : ctx.out)(`${formatProblem(p)} [olm-v1 ${p.check}]`);
  const all = [...base, ...v1];
  const errors = all.filter((p) => p.level === 'error').length;
  const warnings = all.length - errors;
  if (errors === 0) ctx.out(`${o.dir}: bundle is valid and installable by OLM v1${warnings > 0 ? ` (${warnings} warning${warnings > 1 ? 's' : ''})` : ''}`);
  return errors > 0 ? 1 : 0;
}
