// A hung exec credential plugin: a request stops waiting for it at its own deadline or signal, and the
// plugin itself is killed after execPluginTimeoutMs (default 60 s; see defaultExecPluginTimeoutMs for
// why, and for client-go's behaviour). No API server needed: the requests never get past their
// credentials.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { rejection } from '../manager/testdata/wait.js';
import { Transport } from '../transport/index.js';
import { loadKubeConfig, type LoadKubeConfigOptions } from './index.js';

const plugin = fileURLToPath(new URL('./testdata/exec-plugin.mjs', import.meta.url));
const savedKubeconfig = process.env.KUBECONFIG;
let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'opgen-exec-timeout-'));
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true }); // the hang file goes too: a plugin still waiting answers and exits
  if (savedKubeconfig === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = savedKubeconfig;
});

/** A kubeconfig whose exec plugin hangs from its first run (a run is already in its log) while `hang` exists. */
async function hungPlugin(opts: LoadKubeConfigOptions = {}) {
  const hang = join(work, 'hang');
  const runLog = join(work, 'runs.log');
  const pids = join(work, 'pids');
  writeFileSync(hang, '');
  writeFileSync(runLog, 'an earlier run\n');
  writeFileSync(join(work, 'token'), 'unused');
  const file = join(work, 'config');
  writeFileSync(file, stringify({
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
    users: [{ name: 'u', user: { exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: [plugin],
      env: [
        { name: 'PLUGIN_TOKEN_FILE', value: join(work, 'token') },
        { name: 'PLUGIN_RUN_LOG', value: runLog },
        { name: 'PLUGIN_HANG_WHILE', value: hang },
        { name: 'PLUGIN_PID_FILE', value: pids },
      ],
      interactiveMode: 'Never',
    } } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  }));
  process.env.KUBECONFIG = file;
  const kubeConfig = await loadKubeConfig(opts);
  return { kubeConfig, pids: () => readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a hung exec credential plugin', () => {
  it("a request's deadline and signal cut the wait for credentials short", async () => {
    const { kubeConfig } = await hungPlugin();
    const transport = new Transport(kubeConfig);
    try {
      const timedOut = await rejection(transport.request('GET', '/api/v1/namespaces', { timeoutMs: 300 }));
      expect(timedOut.err.name).toBe('TimeoutError');
      expect(timedOut.ms).toBeLessThan(5000);
      const ctl = new AbortController();
      const pending = rejection(transport.request('GET', '/api/v1/namespaces', { signal: ctl.signal, timeoutMs: 0 }));
      setTimeout(() => ctl.abort(), 200);
      const aborted = await pending;
      expect(aborted.err.name).toBe('AbortError');
      expect(aborted.ms).toBeLessThan(5000);
    } finally {
      transport.destroy();
    }
  });

  it('is killed after execPluginTimeoutMs, with a one-line error that says what to do; the next request runs it afresh', async () => {
    const { kubeConfig, pids } = await hungPlugin({ execPluginTimeoutMs: 3000 });
    const first = await rejection(kubeConfig.applyToHTTPSOptions({}));
    // 3 s: long enough for node to start the plugin (and record its pid) on a loaded machine.
    expect(first.ms).toBeGreaterThanOrEqual(2950);
    expect(first.ms).toBeLessThan(15_000);
    expect(first.err.message).toMatch(/^exec plugin ".*" for user "u" in .*config did not answer within 3000 ms and was killed; make it answer without a terminal, or raise loadKubeConfig's execPluginTimeoutMs$/);
    expect(first.err.message).not.toContain('\n');
    const [pid] = pids();
    for (let waited = 0; alive(pid!) && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid!)).toBe(false);
    await rejection(kubeConfig.applyToHTTPSOptions({}));
    expect(pids()).toHaveLength(2);
  });
});
