// Runs docs/tutorial.md's code blocks in order, as a reader would type them, for the tutorial e2e and
// the README demo. `npx opgen` is the opgen under test: a shim on PATH runs the packed CLI, and replaces
// `opgen init`'s `npm install` (which would fetch @opgen/runtime from the registry) by installing the
// packed tarballs. Everything else (kubectl, npm, node) is the real command.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { checkBlocks, readBlocks, type Block } from './tutorial-blocks.js';

export interface TutorialRunnerOptions {
  /** Where the first block runs (it creates the project folder there). */
  work: string;
  /** The packed tarballs: the CLI runs from `cli` (an unpacked opgen), init installs both tarballs. */
  tarballs: { opgen: string; runtime: string };
  cli: string;
  /** Environment for every command, e.g. KUBECONFIG of the cluster to run against. */
  env: NodeJS.ProcessEnv;
  /** Each command block and its output, as it runs (the demo prints them). */
  onOutput?: (text: string) => void;
  /** Blocks to leave out (the demo skips the project's own tests). */
  skip?: (block: Block) => boolean;
}

export interface BlockRun { block: Block; exitCode: number; output: string }

export class TutorialRunner {
  readonly blocks: Block[];
  private next = 0;
  private cwd: string;
  private last?: BlockRun;
  private readonly shim: string;
  /** Background commands (the operator) by block index. */
  readonly background: Array<{ block: Block; process: ResultPromise<{ all: true; reject: false }>; output: () => string }> = [];
  /** Blocks not run (manual), with their reasons. */
  readonly skipped: Block[] = [];

  constructor(private readonly opts: TutorialRunnerOptions) {
    this.blocks = readBlocks();
    checkBlocks(this.blocks);
    this.cwd = opts.work;
    this.shim = join(opts.work, '.tutorial-bin');
    mkdirSync(this.shim, { recursive: true });
    const npx = join(this.shim, 'npx');
    writeFileSync(npx, [
      '#!/usr/bin/env bash',
      '# The tutorial\'s `npx opgen ...`: the packed opgen under test (see e2e/tutorial-runner.ts).',
      'if [ "${1:-}" = opgen ]; then',
      '  shift',
      '  if [ "${1:-}" = init ]; then',
      `    node ${JSON.stringify(opts.cli)} "$@" --skip-install || exit`,
      `    exec npm install --prefer-offline --no-audit --no-fund ${JSON.stringify(opts.tarballs.opgen)} ${JSON.stringify(opts.tarballs.runtime)}`,
      '  fi',
      '  [ -x node_modules/.bin/opgen ] && exec node_modules/.bin/opgen "$@"',
      `  exec node ${JSON.stringify(opts.cli)} "$@"`,
      'fi',
      `exec ${JSON.stringify(realCommand('npx'))} "$@"`,
      '',
    ].join('\n'));
    chmodSync(npx, 0o755);
  }

  get projectDir(): string { return this.cwd; }
  get lastRun(): BlockRun | undefined { return this.last; }

  private get env(): NodeJS.ProcessEnv {
    // npm's user agent would make `opgen init` pick the package manager of whoever runs the tests.
    const { npm_config_user_agent: _agent, ...env } = { ...process.env, ...this.opts.env };
    return { ...env, PATH: `${this.shim}:${env.PATH ?? ''}`, NO_COLOR: '1', FORCE_COLOR: '0' };
  }

  /** Runs blocks up to and including the one with `id=` (all remaining blocks without an id); returns the last command block's run. */
  async runUntil(id?: string): Promise<BlockRun | undefined> {
    if (id !== undefined && !this.blocks.slice(this.next).some((b) => b.attrs.id === id)) {
      throw new Error(`docs/tutorial.md has no block id=${id} after line ${this.blocks[this.next - 1]?.line ?? 0}`);
    }
    while (this.next < this.blocks.length) {
      const block = this.blocks[this.next++]!;
      await this.run(block);
      if (id !== undefined && block.attrs.id === id) break;
    }
    return this.last;
  }

  private async run(block: Block): Promise<void> {
    const where = `docs/tutorial.md:${block.line}`;
    if (block.attrs.file !== undefined) {
      const path = resolve(this.cwd, block.attrs.file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, block.code);
      return;
    }
    if (block.lang === 'text') {
      const output = this.last?.output ?? '';
      for (const line of block.code.trim().split('\n')) {
        if (!output.includes(line.trim())) throw new Error(`${where}: the previous block did not print\n  ${line}\nIt printed:\n${output}`);
      }
      return;
    }
    if ('manual' in block.attrs || this.opts.skip?.(block)) { this.skipped.push(block); return; }
    this.opts.onOutput?.(block.code.trim().split('\n').map((l) => `$ ${l}`).join('\n') + '\n');
    if ('background' in block.attrs) {
      // exec: the signal the test sends reaches the command itself, not a shell around it.
      const child = execa('bash', ['-c', `exec ${block.code.trim()}`], { cwd: this.cwd, env: this.env, all: true, reject: false });
      let output = '';
      child.all.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        this.opts.onOutput?.(chunk.toString());
      });
      this.background.push({ block, process: child, output: () => output });
      return;
    }
    // The folder a block ends in (e.g. after `cd memcached-operator`) is where the next one starts.
    const cwdFile = join(this.shim, 'cwd');
    const r = await execa('bash', ['-euo', 'pipefail', '-c', `${block.code}pwd >${JSON.stringify(cwdFile)}`], {
      cwd: this.cwd, env: this.env, all: true, reject: false,
    });
    const output = String(r.all ?? '');
    this.opts.onOutput?.(output ? `${output}\n` : '');
    this.last = { block, exitCode: r.exitCode ?? -1, output };
    if ('expect-failure' in block.attrs) {
      if (r.exitCode === 0) throw new Error(`${where}: expected to fail, but it succeeded:\n${output}`);
      return;
    }
    if (r.exitCode !== 0) throw new Error(`${where}: exited ${r.exitCode}:\n${block.code}\n${output}`);
    this.cwd = readFileSync(cwdFile, 'utf8').trim();
  }
}

function realCommand(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = join(dir, name);
    try { readFileSync(candidate); return candidate; } catch { /* next */ }
  }
  return name;
}
