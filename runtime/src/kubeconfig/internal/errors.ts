import { homedir } from 'node:os';

/** A kubeconfig that cannot be used: one line naming the file, the field and the fix. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}

/** `~/.kube/config` rather than `/home/me/.kube/config` in messages. */
export function displayPath(file: string): string {
  const home = process.env.HOME || homedir();
  return home && home !== '/' && file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}

/** Folds a (stderr) text into one line. */
export function oneLine(text: string): string {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' | ');
}
