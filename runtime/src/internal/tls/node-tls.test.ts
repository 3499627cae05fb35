// An operator that imports @opgen/runtime and creates a manager holds none of Node's bundled root
// certificates on its heap (node-tls.ts says why they would be there). Checked in a child process on the
// built runtime (runtime/dist, from `npm run build`) with a heap snapshot, whose strings table lists
// every string alive at the time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const runtimeDist = fileURLToPath(new URL('../../../dist/index.js', import.meta.url));
let work: string;

beforeAll(() => {
  if (!existsSync(runtimeDist)) throw new Error(`${runtimeDist} is missing; run \`npm run build\` first`);
  work = mkdtempSync(join(tmpdir(), 'opgen-node-tls-'));
  writeFileSync(
    join(work, 'config'),
    JSON.stringify({
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Strings in a heap snapshot of `script` (run as an ES module in `work`) that begin a PEM certificate. */
function pemStringsOnHeap(script: string): number {
  const file = join(work, `${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, `${script}\nconst { writeHeapSnapshot } = await import('node:v8');\nconsole.log(writeHeapSnapshot(${JSON.stringify(join(work, 'heap'))} + process.pid + '.heapsnapshot'));\n`);
  const r = spawnSync(process.execPath, [file], { cwd: work, env: { ...process.env, KUBECONFIG: join(work, 'config'), HOME: work }, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const snapshot = JSON.parse(readFileSync(r.stdout.trim(), 'utf8')) as { strings: string[] };
  return snapshot.strings.filter((s) => s.startsWith('-----BEGIN CERTIFICATE-----')).length;
}

describe('node:tls', () => {
  it("an ES import of node:tls puts Node's root certificates on the heap (the check below can fail)", () => {
    expect(pemStringsOnHeap("import tls from 'node:tls';\nif (typeof tls.connect !== 'function') process.exit(3);")).toBeGreaterThan(50);
  });

  it('importing @opgen/runtime and creating a manager leaves no root certificate on the heap', () => {
    const script = [
      `const { createManager, loadKubeConfig, silentLogger } = await import(${JSON.stringify(runtimeDist)});`,
      'const mgr = await createManager({ kubeConfig: await loadKubeConfig(), logger: silentLogger() });',
      "if (!mgr.kubeConfig.getCurrentCluster()) process.exit(3);",
    ].join('\n');
    expect(pemStringsOnHeap(script)).toBe(0);
  });
});
