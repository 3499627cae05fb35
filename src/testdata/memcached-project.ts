// Test support (excluded from the build): the Memcached project the webhook and certificate tests start
// from, scaffolded by opgen run in-process.
import { opgenOk } from './cli.js';

/** `opgen init` plus Memcached v1 (with its controller) and v1beta1 (types only), in `dir`. */
export async function memcachedProject(dir: string): Promise<void> {
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
  await opgenOk(dir, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached');
  await opgenOk(dir, 'create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached', '--controller=false');
}

/** That project with every webhook (defaulting, validation, conversion from v1beta1) on `--cert-provider self`, generated. */
export async function selfCertMemcachedProject(dir: string): Promise<void> {
  await memcachedProject(dir);
  await opgenOk(dir, 'create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation', '--conversion', '--spoke', 'v1beta1', '--cert-provider', 'self');
  await opgenOk(dir, 'generate');
}
