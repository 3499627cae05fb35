// `kubectl opgen …`: the kubectl plugin (bin/kubectl-opgen, found by kubectl as kubectl-opgen on PATH)
// exposes the opgen commands that act on a cluster, and only those.
import { run, type Io } from './main.js';

export const PLUGIN_COMMANDS = ['doctor', 'dev', 'debug'] as const;

const usage = [
  'Usage: kubectl opgen <command> [options]',
  '',
  'Commands:',
  '  doctor   check the cluster against the project (version skew, CRDs, RBAC, webhooks)',
  '  dev      run the operator locally against the current context, restarting on change',
  '  debug    apply config/overlays/debug into a debug namespace and port-forward metrics/health on 127.0.0.1',
  '',
  'Each takes --help. The cluster is kubectl\'s current context, or --kubeconfig/--context.',
].join('\n');

export async function runPlugin(argv: string[], io?: Io): Promise<number> {
  const write = (s: string, err = false): void => (io ? (err ? io.stderr(s) : io.stdout(s)) : void (err ? process.stderr : process.stdout).write(s));
  const [command] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    write(`${usage}\n`);
    return command === undefined ? 1 : 0;
  }
  if (!(PLUGIN_COMMANDS as readonly string[]).includes(command)) {
    write(`kubectl opgen: error: unknown command '${command}' (use one of: ${PLUGIN_COMMANDS.join(', ')}; the other opgen commands run as opgen <command>)\n`, true);
    return 1;
  }
  return io ? run(argv, io) : run(argv);
}
