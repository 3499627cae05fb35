// `opgen generate [crd|rbac|webhook]` and `opgen markers`. Every generator stages its files in a Tree;
// nothing is written unless every generator succeeded, and `--check` compares instead of writing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { OpgenError, OpgenErrors, type Position } from '../diag/diagnostic.js';
import { opgenVersion } from '../common/version.js';
import { DEFAULT_MIN_KUBE_VERSION, parseKubeVersion, type KubeMinor } from '../common/kube-version.js';
import type { ApiFolder, GeneratedCrd } from '../crd/index.js';
import type { CrdOptions } from '../crd/crd-options.js';
import type { JSONSchemaProps } from '../common/json-schema.js';
import { SourceSet, formatCatalog, type CollectedMarker, type LoadedFile, type ParsedFile } from '../markers/index.js';
import { Tree, commitTrees } from '../scaffold/index.js';
import { compareWithRecord, readRecord, recordKey, sha1, writeRecord } from './check-cache.js';
import { expandPaths } from '../common/paths.js';
import { warnKindDeclarationMismatches } from './kind-declaration.js';
import { checkCrdUpgrade } from './crd-upgrade-check.js';
import { createGeneratorRegistry } from '../registry/index.js';
import { loadTypeScript } from '../common/typescript-loader.js';
import { toYaml } from '../common/yaml.js';

import { generateTargets, type GenerateTarget } from './targets.js';
import { chartDifferences, chartFolder, type CheckDifference } from './check-chart.js';
import { watchNamespaceOutputs } from './watch-namespaces.js';

export type { GenerateTarget };

export interface GenerateOptions {
  cwd: string;
  targets: GenerateTarget[];
  paths?: string;
  outputDir?: string;
  check: boolean;
  dryRun: boolean;
  /** controller-gen's crd options (`crd:maxDescLen=0`). */
  crd?: CrdOptions;
  /** --allow-unsafe-crd-changes: why CRD changes unsafe against the recorded release are written anyway. */
  allowUnsafeCrdChanges?: string;
  /** --verbose: list the other generators' markers opgen ignores. */
  verbose?: boolean;
}

/**
 * What `--watch` keeps from one run to the next: the compiler, every parsed file with its markers (reused
 * while its text is the same), and the CRDs whose files did not change, with their YAML.
 */
export interface GenerateSession {
  readonly parsed: Map<string, ParsedFile>;
  readonly crds: Map<string, GeneratedCrd>;
  /** The YAML of each kept CRD, by the same key. */
  readonly crdYaml: Map<string, { yaml: string; bytes: number }>;
  /** The scanned files and folder markers the kept CRDs were built with: when they change, all are rebuilt. */
  crdInputs?: string;
  registry?: ReturnType<typeof createGeneratorRegistry>;
  /** What the last run did, for the watcher's status line. */
  last?: { files: string[]; parsed: number; crds: number; built: number };
}

export function newSession(): GenerateSession {
  return { parsed: new Map(), crds: new Map(), crdYaml: new Map() };
}

const DEFAULT_OUTPUT: Record<GenerateTarget, string> = { crd: 'config/crd/bases', rbac: 'config/rbac', webhook: 'config/webhook' };
const ROLE_NAME = 'manager-role';

/** What each target scans: --paths, or the project's default folder. */
export function pathsToScan(o: GenerateOptions, target: GenerateTarget): string {
  return o.paths ?? defaultPaths(o.cwd, target);
}

function defaultPaths(cwd: string, target: GenerateTarget): string {
  if (target === 'crd' && existsSync(join(cwd, 'src', 'api'))) return 'src/api';
  return 'src';
}

function outputDirFor(o: GenerateOptions, targets: GenerateTarget[], target: GenerateTarget): string {
  if (!o.outputDir) return resolve(o.cwd, DEFAULT_OUTPUT[target]);
  // One target: the directory itself (as controller-gen's output:dir); several: it replaces config/.
  if (targets.length === 1) return resolve(o.cwd, o.outputDir);
  return resolve(o.cwd, o.outputDir, DEFAULT_OUTPUT[target].replace(/^config\//, ''));
}

function sortErrors(errors: OpgenError[]): OpgenError[] {
  const seen = new Set<string>();
  const unique = errors.filter((e) => {
    const line = e.format();
    if (seen.has(line)) return false;
    seen.add(line);
    return true;
  });
  const pos = (e: OpgenError): [string, number, number] => {
    const w = e.where;
    return w && 'file' in w ? [w.file, w.line ?? 0, w.column ?? 0] : ['', 0, 0];
  };
  return unique.sort((a, b) => {
    const [fa, la, ca] = pos(a);
    const [fb, lb, cb] = pos(b);
    return fa < fb ? -1 : fa > fb ? 1 : la - lb || ca - cb;
  });
}

export async function generateCommand(o: GenerateOptions, out: (line: string) => void, session?: GenerateSession): Promise<number> {
  const targets = o.targets.length > 0 ? [...new Set(o.targets)] : [...generateTargets];
  const inProject = existsSync(join(o.cwd, 'PROJECT'));
  if (!inProject && !o.paths) {
    throw new OpgenError('no PROJECT file here, so opgen does not know where the sources are', { flag: '--paths' }, 'run inside an opgen project, or pass --paths <dir|glob> (and --output-dir)');
  }
  const scanned: Record<string, string[]> = {};
  for (const target of targets) scanned[target] = expandPaths(o.cwd, pathsToScan(o, target));
  // PROJECT's minKubeVersion line (read without the YAML parser, which --check on an unchanged project
  // does not load): a change makes the record stale, since CEL rules are checked against it.
  const projectText = inProject ? readFileSync(join(o.cwd, 'PROJECT'), 'utf8') : '';
  const minKubeLine = /^minKubeVersion:.*$/m.exec(projectText)?.[0] ?? null;
  // An Ansible project's watches.yaml is read as its manager will read it: refused here, not at start.
  if (projectText.includes('ansible.opgen.dev/')) await (await import('../ansible-operator/watches-file.js')).checkWatchesFile(o.cwd);
  const key = recordKey({ version: opgenVersion(), targets, paths: o.paths ?? null, outputDir: o.outputDir ?? null, inProject, crd: o.crd ?? null, ...(minKubeLine ? { minKubeLine } : {}) });
  // The Helm chart is checked too when the project has one and this run generates all of config/.
  const chartDir = o.check && inProject && !o.paths && !o.outputDir && targets.length === generateTargets.length ? await chartFolder(projectText) : undefined;
  const fix = generateFix(o);
  if (o.check) {
    const record = readRecord(o.cwd, key);
    const differences = record && compareWithRecord(record, key, scanned);
    if (differences) {
      // The record knows what opgen produces; CRD files it wrote earlier for removed kinds are left over.
      const crdDir = targets.includes('crd') ? outputDirFor(o, targets, 'crd') : undefined;
      const produced = new Set(Object.keys(record.outputs).filter((p) => dirname(p) === crdDir).map((p) => relative(crdDir!, p)));
      const leftOver = crdDir ? staleCrdFiles(crdDir, produced).map((path) => ({ path, kind: 'left over' as const })) : [];
      const found = [...differences, ...leftOver].map((d) => ({ ...d, fix }));
      // The chart is built from config/ as generate would write it: when that is the disk, render it in place;
      // otherwise the full run below knows the contents.
      if (!chartDir) return reportCheck(o.cwd, found, out);
      if (found.length === 0) return reportCheck(o.cwd, await chartDifferences(o.cwd, chartDir, new Map()), out);
    }
  }

  const ts = loadTypeScript();
  const { registry, schemaMarkers } = session ? (session.registry ??= createGeneratorRegistry()) : createGeneratorRegistry();
  const errors: OpgenError[] = [];
  const sources = new SourceSet(ts, registry, o.cwd, errors, session?.parsed);
  const outputs: { abs: string; content: string }[] = [];
  /** CRD files an earlier run wrote for kinds that are gone (only files carrying opgen's annotation). */
  const staleFiles: string[] = [];
  let crdCount = 0;
  let builtCount = 0;

  for (const target of targets) {
    const files = scanned[target]!.map((f) => sources.load(f));
    const outDir = outputDirFor(o, targets, target);
    const packageMarkers: CollectedMarker[] = files.flatMap((f) => f.markers.package);
    if (target === 'crd') {
      const { generateCrds } = await import('../crd/index.js');
      const kubernetes = await import('../crd/kubernetes/index.js');
      const folders = foldersOf(files, o.cwd);
      const celFloor = inProject ? await projectFloor(projectText) : undefined;
      if (session) {
        // A folder's markers (group, version, optional by default) or a file more or less can change any CRD.
        const inputs = JSON.stringify([scanned[target], folders.map((f) => [f.dir, f.markers.map((m) => [m.definition.name, m.value])]), celFloor ?? null]);
        if (inputs !== session.crdInputs) session.crds.clear();
        session.crdInputs = inputs;
      }
      const crds = generateCrds(sources, folders, schemaMarkers, kubernetes, opgenVersion(), errors, {
        generateEmbeddedObjectMeta: o.crd?.generateEmbeddedObjectMeta === true,
        warn: out,
        ...(celFloor ? { celFloor } : {}),
        ...(session ? { earlier: session.crds } : {}),
      });
      crdCount += crds.length;
      builtCount += crds.filter((c) => !c.reused).length;
      const { truncateDescriptions } = await import('../crd/crd-options.js');
      for (const c of crds) {
        let written = c.reused ? session?.crdYaml.get(c.key) : undefined;
        if (!written) {
          if (o.crd?.maxDescLen !== undefined) {
            for (const v of (c.crd.spec as { versions: { schema: { openAPIV3Schema: JSONSchemaProps } }[] }).versions) truncateDescriptions(v.schema.openAPIV3Schema, o.crd.maxDescLen);
          }
          written = { yaml: await toYaml([c.crd]), bytes: Buffer.byteLength(JSON.stringify(c.crd)) };
        }
        outputs.push({ abs: join(outDir, c.fileName), content: written.yaml });
        warnIfTooLargeForClientSideApply(relative(o.cwd, join(outDir, c.fileName)), written.bytes, out);
        if (session && c.faultless) {
          session.crds.set(c.key, c);
          session.crdYaml.set(c.key, written);
        } else if (session) {
          session.crds.delete(c.key);
        }
      }
      if (session) {
        const current = new Set(crds.map((c) => c.key));
        for (const key of session.crds.keys()) {
          if (current.has(key)) continue;
          session.crds.delete(key);
          session.crdYaml.delete(key);
        }
      }
      warnKindDeclarationMismatches(ts, crds, out);
      staleFiles.push(...staleCrdFiles(outDir, new Set(crds.map((c) => c.fileName))));
    } else if (target === 'rbac') {
      const { generateRoles } = await import('../rbac/index.js');
      const roles = generateRoles(packageMarkers, ROLE_NAME);
      if (inProject) await warnUnboundClusterRules(o.cwd, packageMarkers, out);
      if (roles.length > 0) outputs.push({ abs: join(outDir, 'role.yaml'), content: await toYaml(roles) });
      if (inProject) outputs.push(...(await watchNamespaceOutputs(o.cwd, projectText, roles, outDir, ROLE_NAME)));
    } else {
      const { generateWebhooks } = await import('../webhook/index.js');
      const configs = generateWebhooks(packageMarkers, errors);
      if (configs.length > 0) outputs.push({ abs: join(outDir, 'manifests.yaml'), content: await toYaml(configs) });
    }
  }
  if (session) {
    session.last = { files: sources.files().map((f) => f.abs), parsed: sources.parsedCount, crds: crdCount, built: builtCount };
    // Parses of files this run did not read (deleted, no longer imported) would only take memory.
    const read = new Set(session.last.files);
    for (const abs of session.parsed.keys()) if (!read.has(abs)) session.parsed.delete(abs);
  }
  if (o.verbose) listIgnoredMarkers(sources.files(), out);
  if (sources.syntaxErrors.length > 0) throw new OpgenErrors(sortErrors(sources.syntaxErrors));
  if (errors.length > 0) throw new OpgenErrors(sortErrors(errors));
  if (targets.includes('crd') && inProject && !o.check) await checkCrdUpgrade(o, outputDirFor(o, targets, 'crd'), outputs, out);

  // One tree per root: the working directory, or an --output-dir outside it.
  const trees = new Map<string, Tree>();
  const treeFor = (abs: string): Tree => {
    const root = !relative(o.cwd, abs).startsWith('..') ? o.cwd : dirname(abs);
    const tree = trees.get(root) ?? new Tree(root);
    trees.set(root, tree);
    return tree;
  };
  for (const file of outputs) {
    const tree = treeFor(file.abs);
    tree.write(relative(tree.root, file.abs), file.content);
  }
  for (const abs of staleFiles) {
    const tree = treeFor(abs);
    tree.delete(relative(tree.root, abs));
  }
  if (o.check) {
    const differences: CheckDifference[] = [];
    for (const tree of trees.values()) {
      for (const c of tree.changes()) differences.push({ path: join(tree.root, c.path), kind: c.kind === 'create' ? 'missing' : c.kind === 'delete' ? 'left over' : 'stale', fix });
    }
    if (chartDir) {
      const tree = trees.get(o.cwd);
      const generated = new Map((tree?.changes() ?? []).map((c) => [c.path, tree!.read(c.path) ?? null]));
      differences.push(...(await chartDifferences(o.cwd, chartDir, generated)));
    }
    return reportCheck(o.cwd, differences, out);
  }
  commitTrees([...trees.values()], { dryRun: o.dryRun, out });
  if (!o.dryRun) {
    writeRecord(o.cwd, {
      key,
      scanned,
      inputs: Object.fromEntries(sources.files().map((f) => [f.abs, sha1(f.sf.text)])),
      outputs: Object.fromEntries(outputs.map((f) => [f.abs, sha1(f.content)])),
    });
  }
  return 0;
}

/** `--verbose`: each marker of another generator, where it stands and whose it is, in file order. */
function listIgnoredMarkers(files: LoadedFile[], out: (line: string) => void): void {
  const at = (p: Position): [string, number, number] => [p.file, p.line ?? 0, p.column ?? 0];
  const ignored = files.flatMap((f) => f.markers.ignored).sort((a, b) => {
    const [fa, la, ca] = at(a.where);
    const [fb, lb, cb] = at(b.where);
    return fa < fb ? -1 : fa > fb ? 1 : la - lb || ca - cb;
  });
  for (const m of ignored) out(`ignored: ${at(m.where).join(':')}: +${m.text} (a marker of ${m.tool}; opgen generates nothing from it)`);
}

/** One line per file with the command that updates it, then the commands in the order to run them. */
function reportCheck(cwd: string, differences: CheckDifference[], out: (line: string) => void): number {
  const lines = differences.map((d) => `${d.kind}: ${relative(cwd, d.path)} (run ${d.fix})`).sort();
  for (const line of lines) out(line);
  // generate's own fix first: the chart is built from what it writes.
  const fixes = [...new Set(differences.map((d) => d.fix))].sort((a, b) => Number(a.includes(' helm')) - Number(b.includes(' helm')));
  if (lines.length > 0) out(`${lines.length} generated file${lines.length > 1 ? 's are' : ' is'} out of date: run ${fixes.join(', then ')}`);
  return lines.length > 0 ? 1 : 0;
}

/** The generate command line that rewrites what this run checks. */
function generateFix(o: GenerateOptions): string {
  const parts = ['opgen generate', ...o.targets];
  if (o.paths) parts.push(`--paths ${o.paths}`);
  if (o.outputDir) parts.push(`--output-dir ${o.outputDir}`);
  return parts.join(' ');
}

/** The limit of kubectl's last-applied-configuration annotation: client-side apply fails above it. */
const LAST_APPLIED_LIMIT = 262_144;

function warnIfTooLargeForClientSideApply(file: string, bytes: number, out: (line: string) => void): void {
  if (bytes <= LAST_APPLIED_LIMIT) return;
  out(`warning: ${file}: the CRD is ${bytes} bytes, over the ${LAST_APPLIED_LIMIT}-byte annotation kubectl apply writes (client-side apply will fail; use kubectl apply --server-side, or shorten descriptions with crd:maxDescLen)`);
}

/**
 * In a namespace-scoped project config/rbac binds only the Role: a marker without namespace= would give a
 * ClusterRole nobody binds, and the operator would miss that permission at run time.
 */
async function warnUnboundClusterRules(cwd: string, markers: CollectedMarker[], out: (line: string) => void): Promise<void> {
  // Loaded here, not at the top: PROJECT's reader brings the yaml package, which `generate --check` on an
  // unchanged project and `opgen markers` do not otherwise load.
  const { managerNamespace, parseProject } = await import('../project/index.js');
  let project;
  try {
    project = parseProject(readFileSync(join(cwd, 'PROJECT'), 'utf8'));
  } catch {
    return; // a broken PROJECT is reported by the commands that need it
  }
  if (!project.namespaced) return;
  for (const m of markers) {
    if (m.definition.name !== 'kubebuilder:rbac' || (m.value as { namespace?: string }).namespace) continue;
    const at = [m.where.file, m.where.line, m.where.column].filter((p) => p !== undefined).join(':');
    out(`warning: ${at}: +kubebuilder:rbac without namespace= makes a ClusterRole, which a namespace-scoped project (PROJECT namespaced: true) does not bind (add ,namespace=${managerNamespace(project)}, or bind it yourself)`);
  }
}

/**
 * The oldest Kubernetes the project's CRDs must install on: PROJECT's minKubeVersion, else the support
 * floor (the OLM bundle's minKubeVersion reads the same setting). Outside a project there is none: rules
 * are checked against the newest API server opgen models, as controller-gen users expect.
 */
async function projectFloor(projectText: string): Promise<{ version: KubeMinor; source: string }> {
  const { readMinKubeVersion } = await import('../project/index.js');
  const stated = readMinKubeVersion(projectText);
  return {
    version: parseKubeVersion(stated ?? DEFAULT_MIN_KUBE_VERSION)!,
    source: stated ? `PROJECT minKubeVersion is "${stated}"` : `PROJECT sets no minKubeVersion, so the project supports Kubernetes ${DEFAULT_MIN_KUBE_VERSION} (the default)`,
  };
}

/** YAML files in the CRD folder that opgen wrote (they carry its annotation) and no longer produces. */
function staleCrdFiles(outDir: string, produced: Set<string>): string[] {
  if (!existsSync(outDir)) return [];
  return readdirSync(outDir)
    .filter((f) => /\.ya?ml$/.test(f) && !produced.has(f))
    .filter((f) => /^ {4}opgen\.dev\/version: /m.test(readFileSync(join(outDir, f), 'utf8')))
    .map((f) => join(outDir, f));
}

/** Groups loaded files by folder; a folder's package markers are those of all its files. */
function foldersOf(files: LoadedFile[], cwd: string): ApiFolder[] {
  const byDir = new Map<string, ApiFolder>();
  for (const f of files) {
    const dir = dirname(f.abs);
    const folder = byDir.get(dir) ?? { dir, display: relative(cwd, dir) || '.', files: [], markers: [] };
    folder.files.push(f);
    folder.markers.push(...f.markers.package);
    byDir.set(dir, folder);
  }
  return [...byDir.values()];
}

export async function markersCommand(out: (line: string) => void): Promise<void> {
  const { registry } = createGeneratorRegistry();
  for (const line of formatCatalog(registry)) out(line);
}
