// A record of the last `opgen generate`: the hash of every source it read and of every file it wrote, kept in
// node_modules/.cache/opgen (or ~/.cache/opgen/generate/ when the project has no node_modules).
// `opgen generate --check` on an unchanged project compares hashes instead of regenerating, which keeps
// it well under a second. Any doubt (other options, a changed or new source) falls back to a full run.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha1, userCacheDir } from '../common/cache-dir.js';

export interface CheckRecord {
  key: string;
  /** Source files each target scanned, per target, in order. */
  scanned: Record<string, string[]>;
  /** Every source read (scanned or imported) → sha1. */
  inputs: Record<string, string>;
  /** Every generated file → sha1 of its content. */
  outputs: Record<string, string>;
}

export { sha1, userCacheDir };

/** node_modules/.cache/opgen in a project with dependencies installed, else the user's cache folder. */
function cacheFile(cwd: string): string {
  const modules = join(cwd, 'node_modules');
  if (existsSync(modules)) return join(modules, '.cache', 'opgen', 'generate.json');
  return userCacheDir('generate', `${sha1(cwd)}.json`);
}

/** Identifies the generator build and the options, so a record is only trusted by the same run. */
export function recordKey(parts: unknown): string {
  const self = fileURLToPath(import.meta.url);
  return sha1(JSON.stringify({ parts, build: statSync(self).mtimeMs }));
}

/** Records of recent runs by key (`generate crd` and `generate` keep separate records). */
type RecordFile = Record<string, CheckRecord>;
const KEPT_RECORDS = 8;

function readAll(cwd: string): RecordFile {
  const file = cacheFile(cwd);
  if (!existsSync(file)) return {};
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as RecordFile) : {};
  } catch {
    return {};
  }
}

export function readRecord(cwd: string, key: string): CheckRecord | undefined {
  return readAll(cwd)[key];
}

export function writeRecord(cwd: string, record: CheckRecord): void {
  const file = cacheFile(cwd);
  const all = readAll(cwd);
  delete all[record.key];
  // Newest last; keep the few most recent option sets.
  const kept = Object.entries(all).slice(-(KEPT_RECORDS - 1));
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify(Object.fromEntries([...kept, [record.key, record]])));
  } catch {
    // The record only speeds up --check; failing to keep it changes nothing else.
  }
}

function hashOf(path: string): string | undefined {
  try {
    return sha1(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * When the record still describes the sources, the outputs that differ from what the last run wrote
 * (`missing`/`stale`); undefined when the sources changed and a full run must decide.
 */
export function compareWithRecord(record: CheckRecord, key: string, scanned: Record<string, string[]>): { path: string; kind: 'missing' | 'stale' }[] | undefined {
  if (record.key !== key) return undefined;
  if (JSON.stringify(record.scanned) !== JSON.stringify(scanned)) return undefined;
  for (const [path, hash] of Object.entries(record.inputs)) if (hashOf(path) !== hash) return undefined;
  const out: { path: string; kind: 'missing' | 'stale' }[] = [];
  for (const [path, hash] of Object.entries(record.outputs)) {
    const now = hashOf(path);
    if (now === undefined) out.push({ path, kind: 'missing' });
    else if (now !== hash) out.push({ path, kind: 'stale' });
  }
  return out;
}
