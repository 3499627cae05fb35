// The project's last released CRDs and the upgrade check against them. `opgen crd record --version X`
// copies the generated CRDs (config/crd/bases) to config/crd/released/, each file under a comment naming
// the release: committed with the release, so the baseline is plain YAML reviewed in the release's pull
// request, needs no git history or tag at check time, and is the same bytes for everyone. `opgen generate`
// and `opgen generate bundle` compare what they are about to write with it and write nothing when a change
// would break objects stored by that release, unless --allow-unsafe-crd-changes gives the reason.
import { existsSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { CommandContext } from '../common/command-context.js';
import { OpgenError, OpgenErrors } from '../diag/diagnostic.js';
import { commitTree, Tree } from '../scaffold/index.js';
import { compareSets, describeFinding, parseCrds, yamlFiles } from './command.js';
import type { LoadedCrd, Located } from './loaded-crd.js';

export const RELEASED_DIR = 'config/crd/released';
export const ALLOW_FLAG = '--allow-unsafe-crd-changes';

const header = (version: string): string =>
  `# The CRDs of release ${version}, recorded by \`opgen crd record --version ${version}\`. opgen generate and opgen\n` +
  '# generate bundle refuse changes that would break objects stored by this release. Do not edit; record again at the next release.\n';
const HEADER_VERSION = /^# The CRDs of release (\S+), recorded by/;

/** Is there a recorded release? Checked without loading the YAML parser. */
export function hasReleasedCrds(cwd: string): boolean {
  const dir = join(cwd, RELEASED_DIR);
  return existsSync(dir) && readdirSync(dir).some((f) => /\.ya?ml$/.test(f));
}

/** The recorded release: its name and CRDs; undefined when the project records none. */
export async function readReleasedCrds(cwd: string): Promise<{ version: string; crds: LoadedCrd[] } | undefined> {
  if (!hasReleasedCrds(cwd)) return undefined;
  const files = yamlFiles(cwd, join(cwd, RELEASED_DIR));
  const version = files.map((f) => HEADER_VERSION.exec(f.text)?.[1]).find((v) => v !== undefined) ?? 'unknown';
  return { version, crds: await parseCrds(files) };
}

export interface UpgradeCheckOptions {
  /** --allow-unsafe-crd-changes: the reason an unsafe change is released on purpose. */
  allow?: string;
  /** Only some of the project's CRDs are checked (generate --paths): one missing is not a removal. */
  partial?: boolean;
  /** Warnings and, when allowed, the unsafe changes. */
  out: (line: string) => void;
}

/**
 * The CRDs about to be written (path as shown, text) against the recorded release. Unsafe changes throw,
 * one error per finding at the field's file:line:column, so the caller writes nothing; warnings are printed.
 */
export async function checkAgainstReleased(cwd: string, news: { shown: string; text: string }[], o: UpgradeCheckOptions): Promise<void> {
  const released = await readReleasedCrds(cwd);
  if (!released) return;
  const { findings } = compareSets(released.crds, await parseCrds(news));
  const against = `release ${released.version}, ${RELEASED_DIR}`;
  const shown = findings.filter((x) => !(o.partial && x.f.rule === 'crd-removed'));
  const tag = (x: Located): string => `[${x.f.origin} ${x.f.rule}; ${against}]`;
  for (const x of shown.filter((x) => x.f.level === 'warning')) o.out(`${x.at}: warning: ${describeFinding(x)} (${x.f.fix}) ${tag(x)}`);
  const unsafe = shown.filter((x) => x.f.level === 'error');
  if (unsafe.length === 0) return;
  if (o.allow !== undefined) {
    for (const x of unsafe) o.out(`${x.at}: warning: ${describeFinding(x)} (allowed: ${o.allow}) ${tag(x)}`);
    o.out(`${ALLOW_FLAG}: ${unsafe.length} unsafe CRD change${unsafe.length === 1 ? '' : 's'} against ${against} allowed: ${o.allow}`);
    return;
  }
  throw new OpgenErrors(
    unsafe.map((x) => {
      const [, file, line, column] = /^(.*):(\d+):(\d+)$/.exec(x.at)!;
      return new OpgenError(`${describeFinding(x)} ${tag(x)}`, { file: file!, line: Number(line), column: Number(column) }, `${x.f.fix}; or, to release the break on purpose, pass ${ALLOW_FLAG} '<reason>'`);
    }),
  );
}

export interface CrdRecordOptions {
  version?: string;
  /** The CRDs to record (default config/crd/bases). */
  from: string;
  /** --allow-unsafe-crd-changes: why a break of the previous record is released anyway. */
  allowUnsafeCrdChanges?: string;
  dryRun: boolean;
}

/**
 * `opgen crd record --version X`: config/crd/released/ becomes the CRDs of `from`, each under the release
 * comment; files of an earlier record that `from` no longer has are removed. Recording is releasing, so a
 * change unsafe against the previous record is refused here too unless allowed.
 */
export async function crdRecordCommand(ctx: CommandContext, o: CrdRecordOptions): Promise<number> {
  if (o.version === undefined) throw new OpgenError('the record needs the release it is of', { flag: '--version' }, 'pass --version 0.2.0 (the version of the bundle or image you release)');
  if (!/^[A-Za-z0-9][A-Za-z0-9.+_-]*$/.test(o.version)) throw new OpgenError(`'${o.version}' is not a release name`, { flag: '--version' }, 'write the version you release, e.g. 0.2.0 or v0.2.0');
  const abs = resolve(ctx.cwd, o.from);
  if (!existsSync(abs)) throw new OpgenError(`${o.from}: no such folder`, { flag: '--from' }, 'run opgen generate first, or pass the folder holding the CRDs you release');
  const files = yamlFiles(ctx.cwd, abs);
  const crds = await parseCrds(files);
  if (crds.length === 0) throw new OpgenError(`${o.from} holds no CustomResourceDefinition`, { flag: '--from' }, 'run opgen generate first');
  await checkAgainstReleased(ctx.cwd, files, { out: ctx.out, ...(o.allowUnsafeCrdChanges === undefined ? {} : { allow: o.allowUnsafeCrdChanges }) });

  const tree = new Tree(ctx.cwd);
  const recorded = new Set<string>();
  for (const f of files) {
    if (!crds.some((c) => c.file === f.shown)) continue; // kustomization.yaml and other non-CRD files
    const name = basename(f.shown);
    recorded.add(name);
    tree.write(`${RELEASED_DIR}/${name}`, header(o.version) + f.text);
  }
  for (const old of tree.list(RELEASED_DIR)) if (!recorded.has(old.slice(RELEASED_DIR.length + 1))) tree.delete(old);
  const changes = commitTree(tree, { dryRun: o.dryRun, out: ctx.out });
  if (o.dryRun) ctx.out(changes.length === 0 ? 'dry run: nothing would change' : 'dry run: nothing was written');
  ctx.out(`${RELEASED_DIR}: ${recorded.size} CRD file${recorded.size === 1 ? '' : 's'} of release ${o.version}; opgen generate and generate bundle check upgrades against them`);
  return 0;
}
