// The CLI entry: builds commander commands from the table, normalises kubebuilder's `--flag=false`
// spelling, and owns the one error handler that turns every failure into one line and an exit code.
import { Command, CommanderError, Option, type OutputConfiguration } from 'commander';
import { isOpgenError, OpgenError } from '../diag/diagnostic.js';
import { commands, groups, type CommandSpec, type Options } from './command-table.js';
import type { CommandContext } from '../common/command-context.js';
import { opgenVersion } from '../common/version.js';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** Runs opgen with `argv` (without node and script) and returns the exit code; never throws. */
export async function run(argv: string[], io: Io = processIo, cwd = process.cwd()): Promise<number> {
  const ctx: CommandContext = {
    cwd,
    out: (l) => io.stdout(`${l}\n`),
    err: (l) => io.stderr(`${l}\n`),
    opgen: async (at, args) => {
      let output = '';
      const code = await run(args, { stdout: (s) => void (output += s), stderr: (s) => void (output += s) }, at);
      return { code, output };
    },
  };
  let usageText = '';
  let exitCode = 0;
  const program = buildProgram(ctx, (code) => (exitCode = code));
  // Commander writes usage errors and help through these; errors are collected and printed as one line.
  const output: OutputConfiguration = {
    writeOut: (s: string) => io.stdout(s),
    writeErr: (s: string) => void (usageText += s),
    outputError: (s: string) => void (usageText += s),
  };
  configure(program, output);
  try {
    let args = normaliseBooleans(argv);
    // Commander answers --help before it looks at the command words, so `opgen frob --help` printed the
    // top-level help and exited 0; without the help flag the same words get its "unknown command" error.
    if (args.some((a) => a === '--help' || a === '-h') && unknownCommandWord(program, args)) args = args.filter((a) => a !== '--help' && a !== '-h');
    await program.parseAsync(args, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return 0; // --help, --version
      if (usageText.trim() === '' || err.code === 'commander.help') {
        // `opgen` or `opgen create` alone: the help went to stderr; show it and fail.
        io.stderr(usageText);
        return 1;
      }
      let line = oneLine(usageText);
      if (/unknown (command|option)/.test(line) && !line.includes('did you mean')) line += ' (see `opgen --help`)';
      io.stderr(`${line}\n`);
      return 1;
    }
    return report(err, io);
  }
}

/** True when a leading word of argv names no command of the group it is given to. */
function unknownCommandWord(program: Command, argv: string[]): boolean {
  let current = program;
  for (const word of argv) {
    if (word === '--') return false;
    if (word.startsWith('-')) continue;
    if (current.commands.length === 0) return false; // a leaf command: the rest are its arguments
    const next = current.commands.find((c) => c.name() === word || c.aliases().includes(word));
    // `opgen generate crd --help`: a command with subcommands that takes arguments too.
    if (!next) return current.registeredArguments.length === 0;
    current = next;
  }
  return false;
}

/** Prints any failure as user-facing line(s); returns the exit code. */
export function report(err: unknown, io: Io): number {
  if (isOpgenError(err)) {
    io.stderr(`${err instanceof OpgenError ? err.format() : err.message}\n`);
    return 1;
  }
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  if (process.env.OPGEN_DEBUG === '1' && err instanceof Error && err.stack) io.stderr(`internal error: ${message}\n${err.stack}\n`);
  else io.stderr(`internal error: ${message} (set OPGEN_DEBUG=1 for the stack trace)\n`);
  return 1;
}

function buildProgram(ctx: CommandContext, setExit: (code: number) => void): Command {
  const program = new Command('opgen')
    .description('Scaffold Kubernetes operators in TypeScript and generate their CRDs, RBAC and webhooks')
    .version(opgenVersion(), '-v, --version', 'print the opgen version')
    .helpOption('-h, --help', 'show help')
    .enablePositionalOptions()
    .showSuggestionAfterError(true);
  const parents = new Map<string, Command>([['', program]]);
  for (const spec of commands) {
    let parent = program;
    for (let i = 0; i < spec.path.length - 1; i++) {
      const key = spec.path.slice(0, i + 1).join(' ');
      let group = parents.get(key);
      if (!group) {
        const name = spec.path[i] ?? '';
        group = parent.command(name).description(groups[key] ?? '');
        parents.set(key, group);
      }
      parent = group;
    }
    // A command may also be the parent of longer ones (`generate` and `generate bundle`).
    parents.set(spec.path.join(' '), addCommand(parent, spec, ctx, setExit));
  }
  return program;
}

function addCommand(parent: Command, spec: CommandSpec, ctx: CommandContext, setExit: (code: number) => void): Command {
  const name = spec.path[spec.path.length - 1] ?? '';
  const cmd = parent.command(spec.args ? `${name} ${spec.args}` : name).description(spec.summary);
  for (const alias of spec.aliases ?? []) cmd.alias(alias);
  for (const o of spec.options) {
    const option = new Option(o.flags, o.description);
    if (o.choices) option.choices(o.choices);
    if (o.default !== undefined && !o.defaultTrue) option.default(o.default);
    cmd.addOption(option);
    if (!o.flags.includes('<') && !o.flags.includes('[')) {
      // Every boolean flag can be turned off (`--x=false` is rewritten to `--no-x`); only flags that are
      // on by default show the negation in help.
      const flag = o.flags.split(' ')[0] ?? '';
      const negation = new Option(`--no-${flag.slice(2)}`, `turn ${flag} off`);
      cmd.addOption(o.defaultTrue ? negation : negation.hideHelp());
    }
  }
  cmd.action(async (...received: unknown[]) => {
    // commander passes the positional arguments, then the options object, then the command.
    const options = received[received.length - 2] as Options;
    // Variadic arguments arrive as an array, a single optional one as a string or undefined.
    const first = received[0] as string[] | string | undefined;
    const args = !spec.args || first === undefined ? [] : Array.isArray(first) ? first : [first];
    setExit(await spec.run(ctx, args, options));
  });
  return cmd;
}

function configure(cmd: Command, output: OutputConfiguration): void {
  cmd.exitOverride().configureOutput(output).showSuggestionAfterError(true);
  for (const sub of cmd.commands) configure(sub, output);
}

/** Every boolean flag in the table; these accept `--flag=true|false`. */
const booleanFlags = new Set(
  commands.flatMap((c) => c.options.filter((o) => !o.flags.includes('<') && !o.flags.includes('[')).map((o) => o.flags.split(' ')[0] ?? '')),
);

/**
 * kubebuilder users type `--namespaced=false`; commander knows `--namespaced` / `--no-namespaced`.
 * Rewrites the former into the latter (before a `--` terminator only).
 */
export function normaliseBooleans(argv: string[]): string[] {
  const out: string[] = [];
  let rest = false;
  for (const arg of argv) {
    const m = /^(--[a-z][a-z-]*)=(.*)$/.exec(arg);
    if (rest || !m || !booleanFlags.has(m[1] ?? '')) {
      if (arg === '--') rest = true;
      out.push(arg);
      continue;
    }
    const [, flag = '', value = ''] = m;
    if (value === 'true') out.push(flag);
    else if (value === 'false') out.push(`--no-${flag.slice(2)}`);
    else throw new OpgenError(`expects true or false, got '${value}'`, { flag }, `write ${flag}=true or ${flag}=false`);
  }
  return out;
}

/** Commander's "error: …\n(Did you mean …?)" as one line. */
function oneLine(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => l.replace(/^\(Did you mean (.*)\?\)$/, '(did you mean $1?)'))
    .join(' ');
}
