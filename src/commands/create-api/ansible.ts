// `opgen create api --ansible-role [<dir>] | --ansible-playbook <file>`: a role or playbook becomes an
// API, in operator-sdk's Ansible operator layout: roles/<name>/ (a new skeleton, or the given role copied
// in), playbooks/<file>, watches.yaml at the project root, a CRD whose spec and status take any fields,
// a sample, the controller module (RBAC markers and dependent kinds, pre-filled with the kinds the role's
// files name) registered in src/main.ts, and an image that carries ansible-runner. Staged in a Tree: a
// refusal writes nothing.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, posix, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { CommandContext } from '../../common/command-context.js';
import { toYaml } from '../../common/yaml.js';
import { stageAndCommit, sourceHeader } from '../shared/run-in-tree.js';
import { importPath, kebab } from '../shared/names.js';
import { OpgenError } from '../../diag/diagnostic.js';
import { pluralize } from '../../naming/index.js';
import { checkGvkFlags, type CreateApiFlagValues } from '../shared/gvk-flags.js';
import { controllerDir, loadProject, managerNamespace, qualifiedGroup, saveProject, type ProjectConfig, type ResourceConfig } from '../../project/index.js';
import { insertInto, renderPartial, renderTemplateFiles, renderTemplates, Tree } from '../../scaffold/index.js';
import { ansibleCrd } from '../../ansible-operator/crd.js';
import { roleKinds, type RoleKind } from '../../ansible-operator/role-kinds.js';
import { WATCHES_FILE, withWatchesEntry } from '../../ansible-operator/watches-file.js';
import { writeKustomizations } from './helm-chart.js';

/** PROJECT's plugins key: the kinds served by a role or playbook. */
export const ANSIBLE_PLUGIN = 'ansible.opgen.dev/v1';

export interface CreateAnsibleApiOptions extends CreateApiFlagValues {
  /** true: a new role skeleton; a string: the folder of an existing role to copy in. */
  ansibleRole?: string | boolean;
  ansiblePlaybook?: string;
}

export async function createAnsibleApi(ctx: CommandContext, o: CreateAnsibleApiOptions): Promise<number> {
  const gvk = validate(o);
  const project = loadProject(new Tree(ctx.cwd));
  const qualified = qualifiedGroup({ group: gvk.group, domain: project.domain });
  const kindLower = gvk.kind.toLowerCase();

  // What the entry runs: the copied or new role, or the playbook (with the roles folder beside it, if any).
  const source = sourceOf(ctx.cwd, o, kindLower);
  const kinds = source.roleDir ? roleKinds(source.roleDir) : source.playbook ? roleKinds(resolve(source.playbook, '..')) : [];
  const crdText = await toYaml([ansibleCrd({ group: qualified, version: gvk.version, kind: gvk.kind, plural: gvk.plural, namespaced: gvk.namespaced })],
    `# The CRD of ${gvk.kind}, written by \`opgen create api --ansible-${source.playbook ? 'playbook' : 'role'}\`: spec and status take any\n# fields (the role reads the spec). Write a schema of your own here when you want the API server to check specs;\n# \`opgen generate\` leaves this file alone.\n`);
  const sampleFile = `${gvk.group}_${gvk.version}_${kindLower}`;
  const sampleText = await toYaml([{
    apiVersion: `${qualified}/${gvk.version}`, kind: gvk.kind,
    metadata: { labels: { 'app.kubernetes.io/name': project.projectName, 'app.kubernetes.io/managed-by': 'kustomize' }, name: `${kindLower}-sample` },
    spec: source.defaults,
  }], `# A ${gvk.kind}: every spec field reaches the role as a variable, snake_cased (replicaCount → replica_count).\n`);

  stageAndCommit(ctx, o.dryRun, (tree) => {
    const p = loadProject(tree);
    const existing = p.resources.find((r) => r.group === gvk.group && r.version === gvk.version && r.kind === gvk.kind);
    if (existing && !o.force) throw new OpgenError(`API ${gvk.group}/${gvk.version}, Kind=${gvk.kind} already exists`, { flag: '--kind' }, 'pass --force to write it again');
    const ctrlDir = controllerDir(p, gvk.group);
    const kindFile = kebab(gvk.kind);
    const controllerFile = `src/${ctrlDir}/${kindFile}-ansible.ts`;
    const data = {
      header: sourceHeader(tree.read('hack/boilerplate.ts.txt')),
      kind: gvk.kind, version: gvk.version, qualifiedGroup: qualified, plural: gvk.plural,
      target: source.playbook ? `the playbook ${source.watchesValue}` : `the role roles/${source.watchesValue}`,
      flag: source.playbook ? 'ansible-playbook' : 'ansible-role',
      rbacNamespace: p.namespaced ? `,namespace=${managerNamespace(p)}` : '',
      dependentKinds: kinds.map((k: RoleKind) => ({ ...k, rbacGroup: k.group || 'core' })),
      controllerImport: importPath('src', `${ctrlDir}/${kindFile}-ansible.ts`),
      objectVariable: `_${qualified}_${kindLower}`.replace(/[.-]/g, '_'),
      controllerFile,
    };

    if (source.roleDir) copyFolder(tree, source.roleDir, `roles/${source.watchesValue}`, o.force);
    else if (source.playbook) {
      tree.write(source.watchesValue, readText(source.playbook), { ifExists: o.force ? 'overwrite' : 'error' });
      const roles = join(resolve(source.playbook, '..'), 'roles');
      if (existsSync(roles) && statSync(roles).isDirectory()) copyFolder(tree, roles, 'roles', o.force);
    } else {
      renderTemplates(tree, 'ansible-operator/role', { data, placeholders: { roleName: source.watchesValue }, force: o.force });
    }
    renderTemplates(tree, 'ansible-operator/project', { data, placeholders: { controllerDir: ctrlDir, kindFile }, force: o.force });
    const fragments = new Map(renderTemplateFiles('ansible-operator/fragments', { data }).map((f) => [f.path, f.content]));
    tree.write(WATCHES_FILE, withWatchesEntry(tree.read(WATCHES_FILE), { group: qualified, version: gvk.version, kind: gvk.kind, ...(source.playbook ? { playbook: source.watchesValue } : { role: source.watchesValue }) }));
    tree.write(`config/crd/bases/${qualified}_${gvk.plural}.yaml`, crdText, { ifExists: o.force ? 'overwrite' : 'error' });
    tree.write(`config/samples/${sampleFile}.yaml`, sampleText, { ifExists: o.force ? 'overwrite' : 'error' });
    writeKustomizations(tree);
    insertInto(tree, 'config/crd/kustomization.yaml', 'crdkustomizeresource', renderPartial('crd-resource', { qualifiedGroup: qualified, plural: gvk.plural }));
    insertInto(tree, 'config/samples/kustomization.yaml', 'manifestskustomizesamples', renderPartial('sample-resource', { sampleFile }));
    insertInto(tree, 'config/default/kustomization.yaml', 'crd', renderPartial('default-crd', {}));
    insertInto(tree, 'src/main.ts', 'imports', fragments.get('main-import')!);
    insertInto(tree, 'src/main.ts', 'controllers', fragments.get('main-controller')!);
    for (const n of imageAndManager(tree, fragments, Boolean(source.playbook))) ctx.err(`note: ${n}`);
    const record: ResourceConfig = {
      group: gvk.group, domain: p.domain, version: gvk.version, kind: gvk.kind,
      ...(gvk.plural !== pluralize(gvk.kind) ? { plural: gvk.plural } : {}),
      api: { crdVersion: 'v1', namespaced: gvk.namespaced }, controller: true,
    };
    saveProject(tree, withPluginRecord({ ...p, resources: existing ? p.resources.map((r) => (r === existing ? record : r)) : [...p.resources, record] }, {
      group: gvk.group, version: gvk.version, kind: gvk.kind, ...(source.playbook ? { playbook: source.watchesValue } : { role: source.watchesValue }),
    }));
  });
  if (o.dryRun) return 0;
  ctx.out(`${gvk.kind} is served by ${source.playbook ? source.watchesValue : `roles/${source.watchesValue}`} (watches.yaml). Next: write the role, list the kinds it manages in the controller module, then:`);
  ctx.out('$ npm run manifests');
  ctx.out('Then, against a cluster: npm run install-crds && npm start (ansible-runner on PATH); docs/ansible-operator.md walks through it.');
  return 0;
}

interface Source {
  /** An existing role folder to copy. */
  roleDir?: string;
  /** An existing playbook file. */
  playbook?: string;
  /** What watches.yaml names: the role's name, or playbooks/<file>. */
  watchesValue: string;
  /** The sample's spec: the role's defaults, camelCased as a user would write them. */
  defaults: Record<string, unknown>;
}

function sourceOf(cwd: string, o: CreateAnsibleApiOptions, kindLower: string): Source {
  if (o.ansiblePlaybook !== undefined) {
    const file = resolve(cwd, o.ansiblePlaybook);
    if (!existsSync(file) || !statSync(file).isFile()) throw new OpgenError(`${o.ansiblePlaybook}: no such file`, { flag: '--ansible-playbook' }, 'pass the path of a playbook (.yml)');
    return { playbook: file, watchesValue: posix.join('playbooks', basename(file)), defaults: {} };
  }
  if (typeof o.ansibleRole === 'string') {
    const dir = resolve(cwd, o.ansibleRole);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new OpgenError(`${o.ansibleRole}: no such folder`, { flag: '--ansible-role' }, 'pass the folder of a role (with tasks/main.yml), or no value for a new role');
    if (!existsSync(join(dir, 'tasks', 'main.yml')) && !existsSync(join(dir, 'tasks', 'main.yaml'))) {
      throw new OpgenError(`${o.ansibleRole} has no tasks/main.yml`, { flag: '--ansible-role' }, 'pass the folder of a role');
    }
    const name = basename(dir);
    if (!/^[a-z0-9_][a-z0-9_.-]*$/i.test(name)) throw new OpgenError(`the role's folder name ${name} is not a role name`, { flag: '--ansible-role' }, 'rename the folder (letters, digits, _ . -)');
    return { roleDir: dir, watchesValue: name, defaults: roleDefaults(dir) };
  }
  return { watchesValue: kindLower, defaults: {} };
}

function roleDefaults(dir: string): Record<string, unknown> {
  const file = ['main.yml', 'main.yaml'].map((f) => join(dir, 'defaults', f)).find((f) => existsSync(f));
  if (!file) return {};
  const values = parseYaml(readFileSync(file, 'utf8')) as unknown;
  if (!values || typeof values !== 'object' || Array.isArray(values)) return {};
  // service_port → servicePort: the runtime snake_cases it back.
  return Object.fromEntries(Object.entries(values).filter(([k]) => !k.startsWith('_')).map(([k, v]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), v]));
}

function readText(file: string): string {
  const bytes = readFileSync(file);
  const text = bytes.toString('utf8');
  if (Buffer.compare(Buffer.from(text, 'utf8'), bytes) !== 0) throw new OpgenError(`${file} is not text`, { flag: '--ansible-role' }, 'remove binary files from the role (files/ may hold them in the image, not the project)');
  return text;
}

function copyFolder(tree: Tree, from: string, to: string, force: boolean): void {
  const walk = (d: string): string[] => readdirSync(d).sort().flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
  for (const file of walk(from)) {
    tree.write(posix.join(to, relative(from, file).split('\\').join('/')), readText(file), { ifExists: force ? 'overwrite' : 'error' });
  }
}

function validate(o: CreateAnsibleApiOptions): { group: string; version: string; kind: string; plural: string; namespaced: boolean } {
  const flag = o.ansiblePlaybook !== undefined ? '--ansible-playbook' : '--ansible-role';
  if (o.ansiblePlaybook !== undefined && o.ansibleRole !== undefined && o.ansibleRole !== false) {
    throw new OpgenError('cannot be combined with --ansible-role', { flag: '--ansible-playbook' }, 'pass one of them: a playbook can use roles of its own');
  }
  const refuse = (f: string, why: string) => new OpgenError(`cannot be combined with ${flag}: ${why}`, { flag: f }, `drop ${f}`);
  if (o.resource === false) throw refuse('--resource', 'the kind is this project\'s own API, with its CRD');
  if (o.controller === false) throw refuse('--controller', 'the Ansible controller is what serves the kind');
  if (o.controllerName !== undefined) throw refuse('--controller-name', 'a kind has one watches.yaml entry');
  if (o.externalApiPath !== undefined) throw refuse('--external-api-path', 'the kind is defined here');
  if (o.externalApiDomain !== undefined) throw refuse('--external-api-domain', 'the kind is defined here');
  const gvk = checkGvkFlags(o);
  if (typeof o.ansibleRole === 'string' && (o.ansibleRole === '' || o.ansibleRole.startsWith('-'))) throw new OpgenError(`is missing its value (got "${o.ansibleRole}")`, { flag: '--ansible-role' }, 'pass a role folder, or nothing for a new role');
  return { ...gvk, namespaced: o.namespaced !== false };
}

/** PROJECT's ansible plugin record: which kind is served by which role or playbook (entries replaced by GVK). */
function withPluginRecord(p: ProjectConfig, entry: { group: string; version: string; kind: string; role?: string; playbook?: string }): ProjectConfig {
  const current = (p.plugins?.[ANSIBLE_PLUGIN] as { resources?: Array<typeof entry> } | undefined)?.resources ?? [];
  const resources = [...current.filter((r) => !(r.group === entry.group && r.version === entry.version && r.kind === entry.kind)), entry];
  return { ...p, plugins: { ...p.plugins, [ANSIBLE_PLUGIN]: { resources } } };
}

/**
 * The image needs Python, ansible-runner and the roles: the runtime stage becomes Debian's Node image
 * with them; the manager's read-only root filesystem needs a writable /tmp for the runs. Edited where
 * the files still look as `opgen init` wrote them; otherwise each is a note saying what to change.
 */
function imageAndManager(tree: Tree, fragments: Map<string, string>, playbooks: boolean): string[] {
  const notes: string[] = [];
  const docker = tree.read('Dockerfile');
  const copy = fragments.get('dockerfile-copy')!.trimEnd() + (playbooks ? `\n${fragments.get('dockerfile-copy-playbooks')!.trimEnd()}` : '');
  if (docker !== undefined && !docker.includes('COPY watches.yaml')) {
    const runtimeFrom = /^# A minimal runtime image.*\nFROM gcr\.io\/distroless\/nodejs\d+-debian12:nonroot$/m.exec(docker);
    const pkgCopy = /^COPY package\.json \/package\.json$/m.exec(docker);
    const entry = /"\/nodejs\/bin\/node"/.exec(docker);
    if (runtimeFrom && pkgCopy && entry) {
      tree.write('Dockerfile', docker
        .replace(pkgCopy[0], `${pkgCopy[0]}\n${copy}`)
        .replace(runtimeFrom[0], fragments.get('dockerfile-runtime')!.trimEnd())
        .replace(entry[0], '"/usr/local/bin/node"'));
    } else notes.push('Dockerfile: the runtime image needs node, ansible, python3-ansible-runner and python3-kubernetes (Debian), plus `COPY watches.yaml roles/ playbooks/` to /');
  } else if (docker !== undefined && playbooks && !docker.includes('COPY playbooks/')) {
    tree.write('Dockerfile', docker.replace(/^COPY roles\/ \/roles\/$/m, `COPY roles/ /roles/\n${fragments.get('dockerfile-copy-playbooks')!.trimEnd()}`));
  }
  const managerPath = 'config/manager/manager.yaml';
  const manager = tree.read(managerPath);
  if (manager !== undefined && !manager.includes('mountPath: /tmp')) {
    if (/^ {8}volumeMounts: \[\]$/m.test(manager) && /^ {6}volumes: \[\]$/m.test(manager)) {
      tree.write(managerPath, manager
        .replace(/^ {8}volumeMounts: \[\]$/m, fragments.get('manager-volume-mount')!.trimEnd())
        .replace(/^ {6}volumes: \[\]$/m, fragments.get('manager-volume')!.trimEnd()));
    } else notes.push(`${managerPath}: mount an emptyDir at /tmp in the manager container (ansible-runner writes its runs there)`);
  }
  return notes;
}
