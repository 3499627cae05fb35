// The cluster as kubectl sees it: doctor, dev and debug act on the user's current context (or the
// --kubeconfig/--context they name), exactly as `kubectl` would, so a kubectl plugin and opgen agree.
import { execa } from 'execa';
import { OpgenError } from '../diag/diagnostic.js';

export interface KubectlTarget {
  kubeconfig?: string;
  context?: string;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class Kubectl {
  constructor(
    readonly target: KubectlTarget = {},
    private readonly cwd = process.cwd(),
  ) {}

  /** The global flags that select the cluster, for kubectl commands run on the user's behalf. */
  flags(): string[] {
    return [
      ...(this.target.kubeconfig ? ['--kubeconfig', this.target.kubeconfig] : []),
      ...(this.target.context ? ['--context', this.target.context] : []),
    ];
  }

  async run(args: string[], input?: string): Promise<KubectlResult> {
    try {
      const r = await execa('kubectl', [...this.flags(), ...args], { cwd: this.cwd, reject: false, input, stripFinalNewline: false });
      return { code: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
    } catch (err) {
      throw new OpgenError(`kubectl could not run: ${(err as Error).message.split('\n')[0]}`, { flag: 'kubectl' }, 'install kubectl and put it on PATH');
    }
  }

  /** JSON output of a kubectl command that must succeed. */
  async json<T>(args: string[], input?: string): Promise<T> {
    const r = await this.run([...args, '-o', 'json'], input);
    if (r.code !== 0) throw new KubectlError(args, r);
    return JSON.parse(r.stdout) as T;
  }

  /** `kubectl get --raw <path>` parsed. */
  async raw<T>(path: string): Promise<T> {
    const r = await this.run(['get', '--raw', path]);
    if (r.code !== 0) throw new KubectlError(['get', '--raw', path], r);
    return JSON.parse(r.stdout) as T;
  }

  /** One object, or undefined when it does not exist. */
  async getOptional<T>(args: string[]): Promise<T | undefined> {
    const r = await this.run(['get', ...args, '-o', 'json']);
    if (r.code !== 0 && /\(NotFound\)|not found/.test(r.stderr)) return undefined;
    if (r.code !== 0) throw new KubectlError(['get', ...args], r);
    return JSON.parse(r.stdout) as T;
  }
}

export class KubectlError extends Error {
  constructor(
    readonly args: string[],
    readonly result: KubectlResult,
  ) {
    super(`kubectl ${args.join(' ')}: ${firstLine(result.stderr) || `exit ${result.code}`}`);
  }

  get forbidden(): boolean {
    return /\(Forbidden\)|forbidden/.test(this.result.stderr);
  }
}

export function firstLine(text: string): string {
  return text.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
}
