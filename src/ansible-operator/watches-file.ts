// watches.yaml as `create api --ansible-role|--ansible-playbook` edits it (an entry added or replaced,
// the user's comments and other entries kept) and as `opgen generate` checks it: the runtime's own
// reader (@opgen/runtime/ansible), so a file the manager would refuse at start is refused here first.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, type YAMLSeq } from 'yaml';
import { OpgenError } from '../diag/diagnostic.js';

export const WATCHES_FILE = 'watches.yaml';

const header = `# Which role or playbook serves which kind: operator-sdk's Ansible operator format (docs/ansible-operator.md).
# Per entry also: vars, reconcilePeriod (e.g. 1m), manageStatus (true), watchDependentResources (true),
# watchClusterScopedResources (false), snakeCaseParameters (true), watchAnnotationsChanges (false),
# markUnsafe (false), maxRunnerArtifacts (20), finalizer {name, role | playbook | vars}, blacklist, selector.
`;

export interface WatchesEntry {
  group: string;
  version: string;
  kind: string;
  role?: string;
  playbook?: string;
}

/** The file's text with `entry` added (or replacing the entry of the same GVK, keeping its other keys). */
export function withWatchesEntry(current: string | undefined, entry: WatchesEntry): string {
  const doc = parseDocument(current ?? header);
  if (doc.errors.length > 0) throw new OpgenError(`not YAML: ${doc.errors[0]!.message.split('\n')[0]}`, { file: WATCHES_FILE }, 'fix the YAML syntax first');
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) doc.contents = doc.createNode([]) as unknown as typeof doc.contents;
  if (!isSeq(doc.contents)) throw new OpgenError('watches.yaml must be a list of entries', { file: WATCHES_FILE }, 'write `- group: …` entries, one per kind');
  const list = doc.contents as YAMLSeq;
  list.flow = false;
  const same = list.items.find((i) => isMap(i) && i.get('group') === entry.group && i.get('version') === entry.version && i.get('kind') === entry.kind);
  if (same && isMap(same)) {
    same.delete(entry.role ? 'playbook' : 'role');
    same.set(entry.role ? 'role' : 'playbook', entry.role ?? entry.playbook);
  } else {
    list.items.push(doc.createNode({ version: entry.version, group: entry.group, kind: entry.kind, ...(entry.role ? { role: entry.role } : { playbook: entry.playbook }) }));
  }
  return doc.toString({ lineWidth: 0 });
}

/**
 * `opgen generate`: a project with a watches.yaml has it read as the manager will read it. A problem
 * becomes an OpgenError at the file's line and column.
 */
export async function checkWatchesFile(projectDir: string): Promise<void> {
  const file = join(projectDir, WATCHES_FILE);
  if (!existsSync(file)) return;
  const { loadWatches, WatchesError } = await import('@opgen/runtime/ansible');
  try {
    loadWatches(file, { rootDir: projectDir });
  } catch (err) {
    if (!(err instanceof WatchesError)) throw err;
    throw new OpgenError(err.problem, { file: relative(projectDir, err.file) || err.file, line: err.line, column: err.column }, err.fix);
  }
}
