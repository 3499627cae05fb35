// The user's opgen cache folder and the hash its file names use: shared by generate's --check record and
// the compiled-TypeScript cache of the loader.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** A path under the user's opgen cache folder ($XDG_CACHE_HOME/opgen, else ~/.cache/opgen). */
export function userCacheDir(...parts: string[]): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'opgen', ...parts);
}
