// One ansible-runner run: the input folder operator-sdk lays out (env/extravars, artifacts rotated to
// maxRunnerArtifacts), the role or playbook, a kubeconfig that points kubernetes.core at the local
// proxy. Its job events (artifacts/<ident>/job_events/*.json) are read while it runs, so every task
// reaches the operator's log as it finishes, and give the run's counts and failed tasks.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setRepeatingTimer, setTimer } from '../internal/timers/index.js';
import type { Logger } from '../log/index.js';

/** The one line a missing ansible-runner gets. */
export const installHint = 'install ansible-runner, ansible and the Kubernetes Python client: `apt-get install ansible python3-ansible-runner python3-kubernetes` (Debian/Ubuntu) or `pip install ansible-runner ansible-core kubernetes` plus `ansible-galaxy collection install kubernetes.core`';

export class AnsibleRunnerMissingError extends Error {
  constructor(binary: string) {
    super(`${binary} was not found on PATH: ${installHint}`);
    this.name = 'AnsibleRunnerMissingError';
  }
}

export interface RunRequest {
  /** The folder of this object's runs (inventory, env, artifacts). */
  inputDir: string;
  ident: string;
  role?: string;
  playbook?: string;
  extraVars: Record<string, unknown>;
  /** Written to a file; KUBECONFIG and K8S_AUTH_KUBECONFIG name it. */
  kubeconfig: object;
  maxArtifacts: number;
  verbosity: number;
  signal?: AbortSignal;
  log?: Logger;
  /** A folder appended to ANSIBLE_COLLECTIONS_PATH (after the user's and the system's). */
  collectionsPath?: string;
  /** Called with the child's pid once it started (tests watch it die on lost leadership). */
  onStart?: (pid: number) => void;
}

export interface FailedTask { task: string; message: string }

export interface AnsibleResult { ok: number; changed: number; skipped: number; failures: number; completion: string }

export interface RunResult {
  /** From the playbook_on_stats event; undefined when the run ended before it (killed, or ansible could not start). */
  result?: AnsibleResult;
  failedTasks: FailedTask[];
  /** Task actions with their results, in order (operator_sdk.util.requeue_after and k8s_status read from them). */
  events: JobEvent[];
  exitCode: number | null;
  durationMs: number;
  /** The tail of ansible-runner's stdout when no stats came. */
  output: string;
}

export interface JobEvent {
  counter: number;
  event: string;
  stdout?: string;
  event_data?: {
    task?: string;
    task_action?: string;
    ignore_errors?: boolean;
    rescued?: number;
    res?: Record<string, unknown>;
    ok?: Record<string, number>; changed?: Record<string, number>; skipped?: Record<string, number>;
    failures?: Record<string, number>; dark?: Record<string, number>;
  };
}

export async function runAnsible(req: RunRequest, binary = process.env.ANSIBLE_RUNNER_BINARY ?? 'ansible-runner'): Promise<RunResult> {
  mkdirSync(join(req.inputDir, 'env'), { recursive: true, mode: 0o700 });
  writeFileSync(join(req.inputDir, 'env', 'extravars'), JSON.stringify(req.extraVars), { mode: 0o600 });
  const kubeconfig = join(req.inputDir, 'kubeconfig');
  writeFileSync(kubeconfig, JSON.stringify(req.kubeconfig), { mode: 0o600 });

  const args = ['run', req.inputDir, '-i', req.ident, '--rotate-artifacts', String(req.maxArtifacts)];
  if (req.role) args.push('--role', basename(req.role), '--roles-path', dirname(req.role), '--hosts', 'localhost');
  else args.push('-p', req.playbook!);
  if (req.verbosity > 0) args.push(`-${'v'.repeat(Math.min(req.verbosity, 7))}`);

  const started = Date.now();
  const child = spawn(binary, args, {
    env: {
      ...process.env, KUBECONFIG: kubeconfig, K8S_AUTH_KUBECONFIG: kubeconfig, ANSIBLE_LOCALHOST_WARNING: 'False', ANSIBLE_INVENTORY_UNPARSED_WARNING: 'False',
      ...(req.collectionsPath ? { ANSIBLE_COLLECTIONS_PATH: `${process.env.ANSIBLE_COLLECTIONS_PATH ?? '~/.ansible/collections:/usr/share/ansible/collections'}:${req.collectionsPath}` } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a lost leadership or shutdown ends ansible-runner and what it started.
    detached: true,
  });
  let output = '';
  const keep = (d: Buffer) => { output = (output + d.toString('utf8')).slice(-8192); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);

  const eventsDir = join(req.inputDir, 'artifacts', req.ident, 'job_events');
  const events = new Map<string, JobEvent>();
  const readEvents = () => {
    if (!existsSync(eventsDir)) return;
    const fresh: JobEvent[] = [];
    for (const f of readdirSync(eventsDir)) {
      if (!f.endsWith('.json') || events.has(f)) continue;
      try {
        const e = JSON.parse(readFileSync(join(eventsDir, f), 'utf8')) as JobEvent;
        events.set(f, e);
        fresh.push(e);
      } catch { /* written partly: read on the next pass */ }
    }
    for (const e of fresh.sort((a, b) => a.counter - b.counter)) logEvent(req.log, e);
  };
  const poll = setRepeatingTimer(readEvents, 250);

  const kill = () => {
    if (child.pid === undefined || child.exitCode !== null) return;
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
    // ansible-runner cancels its ansible-playbook on SIGTERM; one that does not within 5 s is killed.
    setTimer(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 5_000).unref();
  };
  if (req.signal?.aborted) kill();
  req.signal?.addEventListener('abort', kill, { once: true });

  let exitCode: number | null;
  try {
    exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new AnsibleRunnerMissingError(binary) : err));
      child.once('spawn', () => { if (child.pid !== undefined) req.onStart?.(child.pid); });
      child.once('close', (code) => resolve(code));
    });
  } finally {
    poll.clear();
    req.signal?.removeEventListener('abort', kill);
  }
  readEvents();

  const all = [...events.values()].sort((a, b) => a.counter - b.counter);
  const stats = all.find((e) => e.event === 'playbook_on_stats')?.event_data;
  const sum = (m?: Record<string, number>) => Object.values(m ?? {}).reduce((a, b) => a + b, 0);
  const failedTasks = all
    .filter((e) => (e.event === 'runner_on_failed' || e.event === 'runner_on_unreachable') && !e.event_data?.ignore_errors && !e.event_data?.rescued)
    .map((e) => ({ task: e.event_data?.task ?? '', message: failureMessage(e) }));
  return {
    ...(stats ? { result: { ok: sum(stats.ok), changed: sum(stats.changed), skipped: sum(stats.skipped), failures: sum(stats.failures) + sum(stats.dark), completion: new Date().toISOString().replace(/\.\d+Z$/, '') } } : {}),
    failedTasks,
    events: all,
    exitCode,
    durationMs: Date.now() - started,
    output,
  };
}

/** What operator-sdk puts in the Failure condition: the task's `msg`, else its stderr, else the task's name. */
function failureMessage(e: JobEvent): string {
  const res = e.event_data?.res ?? {};
  const msg = typeof res.msg === 'string' && res.msg ? res.msg : typeof res.stderr === 'string' && res.stderr ? res.stderr : `task ${e.event_data?.task ?? ''} failed`;
  return msg.trim();
}

function logEvent(log: Logger | undefined, e: JobEvent): void {
  if (!log) return;
  const task = e.event_data?.task;
  switch (e.event) {
    case 'runner_on_ok': case 'runner_on_skipped':
      log.info('ansible task', { task, action: e.event_data?.task_action, result: e.event === 'runner_on_ok' ? (e.event_data?.res?.changed ? 'changed' : 'ok') : 'skipped' });
      break;
    case 'runner_on_failed': case 'runner_on_unreachable':
      log.info('ansible task failed', { task, action: e.event_data?.task_action, ignored: Boolean(e.event_data?.ignore_errors), message: failureMessage(e) });
      break;
    case 'playbook_on_stats': {
      const sum = (m?: Record<string, number>) => Object.values(m ?? {}).reduce((a, b) => a + b, 0);
      log.info('ansible run finished', { ok: sum(e.event_data?.ok), changed: sum(e.event_data?.changed), skipped: sum(e.event_data?.skipped), failures: sum(e.event_data?.failures) });
      break;
    }
    default:
  }
}
