// Module-resolution hook registered by register.mjs: logs each resolved URL.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.OPGEN_LOAD_LOG, `${result.url}\n`);
  return result;
}
