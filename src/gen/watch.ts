// `opgen generate --watch`: a full run first, then a run after every burst of source changes, in one
// process that keeps the compiler, every parsed file and the CRDs of unchanged kinds (GenerateSession).
// A run that finds errors prints them as `opgen generate` does, writes nothing, and the watch goes on.
// It stops on the signal (Ctrl-C): the run under way finishes first, so no file is left half-written.
import { existsSync, statSync, watch, type FSWatcher } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import type { CommandContext } from '../common/command-context.js';
import { OpgenError, OpgenErrors, isOpgenError } from '../diag/diagnostic.js';
import { generateCommand, newSession, pathsToScan, type GenerateOptions, type GenerateSession } from './command.js';
import { sourceFolders } from '../common/paths.js';
import { generateTargets } from './targets.js';

/**
 * How long the sources must stay quiet before a run: an editor's save is often several events (write,
 * rename, chmod) within a few milliseconds, and "save all" touches many files at once.
 */
export const DEBOUNCE_MS = 100;

interface Root {
  dir: string;
  recursive: boolean;
}

/** Runs until `stop` is aborted, then returns 0; throws when the options are wrong (nothing to watch). */
export async function watchGenerate(o: GenerateOptions, ctx: CommandContext, stop: AbortSignal): Promise<number> {
  if (o.check || o.dryRun) {
    throw new OpgenError(`--watch writes the files; it does not combine with ${o.check ? '--check' : '--dry-run'}`, { flag: '--watch' }, `drop ${o.check ? '--check' : '--dry-run'} or --watch`);
  }
  const session = newSession();
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let pending = false;
  let firstRun = true;
  let lastFiles = '';
  let lastErrors = '';

  const runOnce = async (): Promise<void> => {
    const t0 = performance.now();
    const written: string[] = [];
    session.last = undefined;
    try {
      await generateCommand(o, (line) => written.push(line), session);
      // Folders are watched before the status line says so: a save right after it is seen.
      updateWatchers(o, session, watchers, schedule, ctx, !firstRun);
      for (const line of written) ctx.out(line);
      const last = lastRun(session)!;
      const files = last.files.join('\n');
      // A burst that changed no source (an editor's backup file, a save without edits) stays quiet.
      if (firstRun || last.parsed > 0 || files !== lastFiles || written.length > 0) {
        const crds = last.crds === 0 ? '' : `, rebuilt ${last.built} of ${last.crds} CRD${last.crds === 1 ? '' : 's'}`;
        ctx.out(`${firstRun ? 'generated' : 'regenerated'} in ${Math.round(performance.now() - t0)} ms (parsed ${last.parsed} of ${last.files.length} files${crds}); watching for changes, Ctrl-C stops`);
      }
      lastFiles = files;
      lastErrors = '';
    } catch (err) {
      updateWatchers(o, session, watchers, schedule, ctx, !firstRun);
      for (const line of written) ctx.out(line); // warnings printed before the errors were found
      // Wrong flags (no PROJECT and no --paths, a path that does not exist): nothing to watch; the CLI prints it.
      if (firstRun && isOpgenError(err) && !hasFilePosition(err)) throw err;
      const lines = isOpgenError(err) ? (err instanceof OpgenErrors ? err.errors.map((e) => e.format()) : [err.format()]) : [`internal error: ${(err as Error).message.split('\n')[0]} (set OPGEN_DEBUG=1 for the stack trace)`];
      if (!isOpgenError(err) && process.env.OPGEN_DEBUG === '1') lines.push(String((err as Error).stack));
      const last = lastRun(session);
      const files = last?.files.join('\n') ?? '';
      // The same errors again after a burst that changed no source: they are on the screen already.
      if (lines.join('\n') !== lastErrors || files !== lastFiles || (last?.parsed ?? 0) > 0) {
        for (const line of lines) ctx.err(line);
        ctx.out(`${lines.length} error${lines.length === 1 ? '' : 's'}, nothing written; watching for changes, Ctrl-C stops`);
      }
      lastErrors = lines.join('\n');
      lastFiles = files;
    }
    firstRun = false;
  };

  function schedule(): void {
    if (stop.aborted) return;
    if (running) {
      pending = true;
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      running = runOnce().then(settle);
    }, DEBOUNCE_MS);
  }

  /** After a run: a change seen while it ran starts the next one. */
  function settle(): void {
    running = undefined;
    if (pending && !stop.aborted) {
      pending = false;
      schedule();
    }
  }

  // The scanned folders are watched from the start, so a save during the first (full) run is not lost.
  updateWatchers(o, session, watchers, schedule, ctx);
  running = runOnce().then(settle);
  try {
    await running;
  } catch (err) {
    closeAll(watchers);
    throw err;
  }
  await new Promise<void>((done) => {
    if (stop.aborted) done();
    else stop.addEventListener('abort', () => done(), { once: true });
  });
  clearTimeout(timer);
  closeAll(watchers);
  // A run under way finishes first: its files are all written (each renamed into place) or none.
  await running;
  return 0;
}

/** What generateCommand recorded (read through a call: the compiler cannot see that it sets it). */
function lastRun(session: GenerateSession): GenerateSession['last'] {
  return session.last;
}

function hasFilePosition(err: OpgenError | OpgenErrors): boolean {
  const all = err instanceof OpgenErrors ? err.errors : [err];
  return all.some((e) => e.where !== undefined && 'file' in e.where);
}

function closeAll(watchers: Map<string, FSWatcher>): void {
  for (const w of watchers.values()) w.close();
  watchers.clear();
}

/** Folders to watch: the scanned folders (recursively), and the folder of each other file read (imports). */
export function watchRoots(o: GenerateOptions, files: string[]): Root[] {
  const targets = o.targets.length > 0 ? o.targets : generateTargets;
  const recursive = new Set<string>();
  const flat = new Set<string>();
  for (const target of targets) {
    for (const raw of pathsToScan(o, target).split(/[;,]/).map((s) => s.trim()).filter(Boolean)) {
      let part = raw.replace(/\/\.\.\.$/, '').replace(/^\.\.\.$/, '.');
      const wildcard = part.search(/[*?[]/);
      if (wildcard >= 0) part = part.slice(0, part.lastIndexOf('/', wildcard) + 1) || '.';
      const abs = resolve(o.cwd, part);
      if (!existsSync(abs)) {
        // Deleted (or not made yet): its nearest existing folder sees it come back.
        const above = nearestExisting(abs);
        if (above) flat.add(above);
        continue;
      }
      if (statSync(abs).isDirectory()) recursive.add(abs);
      else flat.add(dirname(abs));
    }
  }
  for (const f of files) flat.add(dirname(f));
  const under = (dir: string, root: string): boolean => dir === root || dir.startsWith(root.endsWith(sep) ? root : root + sep);
  const roots: Root[] = [];
  for (const dir of recursive) if (![...recursive].some((r) => r !== dir && under(dir, r))) roots.push({ dir, recursive: true });
  for (const dir of flat) if (!roots.some((r) => under(dir, r.dir))) roots.push({ dir, recursive: false });
  return roots.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
}

function nearestExisting(path: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Generated YAML and opgen's own temp files are not sources; anything else may be (a new folder, a rename). */
function relevant(name: string | null): boolean {
  if (name === null) return true;
  const base = name.split(/[\\/]/).pop() ?? name;
  return !base.startsWith('.opgen-') && !/\.ya?ml$/.test(base);
}

/**
 * One non-recursive watcher per folder. Node 20's recursive fs.watch on Linux watches each file, and loses
 * a file that an editor saves by writing a copy and renaming it over the original (vim, sed -i, JetBrains'
 * safe write); a folder's watcher sees that rename. Folders are listed again after every run.
 */
function updateWatchers(o: GenerateOptions, session: GenerateSession, watchers: Map<string, FSWatcher>, changed: () => void, ctx: CommandContext, rescanNew = false): void {
  const wanted = new Set<string>();
  for (const root of watchRoots(o, session.last?.files ?? [])) {
    try {
      for (const dir of root.recursive ? sourceFolders(root.dir) : [root.dir]) wanted.add(dir);
    } catch {
      // Deleted meanwhile: the watcher of the folder above reports it, and the next run looks again.
    }
  }
  for (const [dir, w] of watchers) {
    if (wanted.has(dir)) continue;
    w.close();
    watchers.delete(dir);
  }
  let added = false;
  for (const dir of wanted) {
    if (watchers.has(dir)) continue;
    added = true;
    try {
      const w = watch(dir, (_event, name) => {
        if (relevant(name)) changed();
      });
      // A watched folder that is deleted ends its watcher; the next run watches what exists then.
      w.on('error', () => {
        w.close();
        watchers.delete(dir);
        changed();
      });
      watchers.set(dir, w);
    } catch (err) {
      ctx.err(`${relative(o.cwd, dir) || '.'}: warning: cannot watch this folder (${(err as Error).message}); changes in it are not seen`);
    }
  }
  // A folder watched from now on (made again after a delete, or new) may have got files after the run
  // listed it and before its watcher existed: one more run reads them.
  if (added && rescanNew) changed();
}
