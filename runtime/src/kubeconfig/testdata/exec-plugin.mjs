#!/usr/bin/env node
// A client-go exec credential plugin for the tests: prints an ExecCredential with the token in
// $PLUGIN_TOKEN_FILE, or the client certificate and key (PEM) in $PLUGIN_CERT_FILE and $PLUGIN_KEY_FILE,
// valid for $PLUGIN_EXPIRES_IN_MS (none when unset), and appends the
// KUBERNETES_EXEC_INFO it was given to $PLUGIN_RUN_LOG, one line per run. $PLUGIN_FAIL makes it
// fail the way a real plugin does (message on stderr, non-zero exit). With $PLUGIN_HANG_WHILE (a file)
// every run after the first (runs counted in $PLUGIN_RUN_LOG) waits while that file exists: a plugin
// that answers once, then hangs on refresh. $PLUGIN_PID_FILE gets the pid of each run.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

const env = process.env;
const earlierRuns = env.PLUGIN_RUN_LOG && existsSync(env.PLUGIN_RUN_LOG) ? readFileSync(env.PLUGIN_RUN_LOG, 'utf8').split('\n').filter(Boolean).length : 0;
if (env.PLUGIN_RUN_LOG) appendFileSync(env.PLUGIN_RUN_LOG, `${env.KUBERNETES_EXEC_INFO ?? ''}\n`);
if (env.PLUGIN_PID_FILE) appendFileSync(env.PLUGIN_PID_FILE, `${process.pid}\n`);
if (env.PLUGIN_HANG_WHILE && earlierRuns > 0) {
  while (existsSync(env.PLUGIN_HANG_WHILE)) await new Promise((r) => setTimeout(r, 50));
}
if (env.PLUGIN_FAIL) {
  process.stderr.write(`error: ${env.PLUGIN_FAIL}\nrun 'login' first\n`);
  process.exit(3);
}
const info = JSON.parse(env.KUBERNETES_EXEC_INFO ?? '{}');
const status = env.PLUGIN_CERT_FILE
  ? { clientCertificateData: readFileSync(env.PLUGIN_CERT_FILE, 'utf8'), clientKeyData: readFileSync(env.PLUGIN_KEY_FILE, 'utf8') }
  : { token: readFileSync(env.PLUGIN_TOKEN_FILE, 'utf8').trim() };
if (env.PLUGIN_EXPIRES_IN_MS) status.expirationTimestamp = new Date(Date.now() + Number(env.PLUGIN_EXPIRES_IN_MS)).toISOString();
// client-node sets no KUBERNETES_EXEC_INFO; answer it in v1beta1, which it does not check.
process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion ?? 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status }));
