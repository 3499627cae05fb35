// `opgen edit`: change project-wide settings recorded in PROJECT.
import type { CommandContext } from '../../common/command-context.js';
import { OpgenError } from '../../diag/diagnostic.js';
import { loadProject, saveProject } from '../../project/index.js';
import { boilerplateFor, ownerIn, readLicenseFile, type License } from '../shared/license.js';
import { stageAndCommit } from '../shared/run-in-tree.js';
import { parseCertProvider } from '../create-webhook/cert-provider.js';
import { switchCertProvider } from './cert-provider.js';
import { addGrafana, parsePlugins } from './grafana.js';
import { parseWatchNamespaces, setWatchNamespaces, switchNamespaced } from './namespaced.js';
import { shardedReplicas, switchSharded } from './sharded.js';

export interface EditOptions {
  /** undefined = leave as it is. */
  multigroup?: boolean;
  /** undefined = leave as it is; true/false switch between a namespace- and a cluster-scoped operator. */
  namespaced?: boolean;
  /** --watch-namespaces: the namespaces a namespace-scoped operator watches besides its own ('' for none). */
  watchNamespaces?: string;
  /** undefined = leave as it is; true/false switch sharding (every replica active) on or off. */
  sharded?: boolean;
  /** --replicas with --sharded (default 3). */
  replicas?: string;
  /** Rewrite hack/boilerplate.ts.txt (the header of files scaffolded from now on). */
  license?: License;
  owner?: string;
  licenseFile?: string;
  /** --plugins: comma-separated plugins to add (grafana). */
  plugins?: string;
  /** --cert-provider: move every webhook to cert-manager or self. */
  certProvider?: string;
  dryRun: boolean;
}

const BOILERPLATE = 'hack/boilerplate.ts.txt';

export async function editCommand(ctx: CommandContext, o: EditOptions): Promise<number> {
  const licensing = o.license !== undefined || o.owner !== undefined || o.licenseFile !== undefined;
  if (o.multigroup === undefined && o.namespaced === undefined && o.watchNamespaces === undefined && o.sharded === undefined && !licensing && o.plugins === undefined && o.certProvider === undefined) {
    throw new OpgenError('nothing to change', { flag: 'edit' }, 'pass --multigroup[=false], --namespaced[=false], --watch-namespaces, --sharded[=false], --license, --owner, --license-file, --plugins or --cert-provider');
  }
  const plugins = o.plugins !== undefined ? parsePlugins(o.plugins) : [];
  const certProvider = o.certProvider !== undefined ? parseCertProvider(o.certProvider) : undefined;
  const replicas = shardedReplicas(o.sharded === true, o.replicas);
  if (o.licenseFile !== undefined && (o.license !== undefined || o.owner !== undefined)) {
    throw new OpgenError('replaces the whole header, so --license and --owner do not apply', { flag: '--license-file' }, 'pass either --license-file or --license/--owner');
  }
  if (o.owner !== undefined && o.owner.trim() === '') throw new OpgenError('is empty', { flag: '--owner' }, 'e.g. --owner "Example Corp"');
  if (o.owner !== undefined && o.license === 'none') throw new OpgenError('has no header to appear in with --license none', { flag: '--owner' }, 'drop --owner, or use --license apache2');
  const licenseFile = o.licenseFile !== undefined ? readLicenseFile(ctx.cwd, o.licenseFile) : undefined;
  const multigroup = o.multigroup;
  let note: string | undefined;
  const notes: string[] = [];
  stageAndCommit(ctx, o.dryRun, (tree) => {
    let project = loadProject(tree);
    if (o.namespaced === false && project.namespaced && project.watchNamespaces?.length) {
      // A cluster-scoped operator watches everything: the extra namespaces' Roles go first.
      setWatchNamespaces(tree, project, []);
      project = { ...project };
      delete project.watchNamespaces;
    }
    if (o.namespaced !== undefined && o.namespaced !== (project.namespaced === true)) {
      notes.push(...switchNamespaced(tree, project, o.namespaced));
      project = { ...project };
      if (o.namespaced) project.namespaced = true;
      else delete project.namespaced;
      saveProject(tree, project);
    }
    if (o.watchNamespaces !== undefined) {
      if (!project.namespaced) throw new OpgenError('needs a namespace-scoped project (a cluster-scoped operator watches every namespace)', { flag: '--watch-namespaces' }, 'add --namespaced');
      const namespaces = parseWatchNamespaces(o.watchNamespaces, project);
      notes.push(...setWatchNamespaces(tree, project, namespaces));
      project = { ...project, watchNamespaces: namespaces };
      saveProject(tree, project);
    }
    if (o.sharded !== undefined && (o.sharded !== (project.sharded === true) || o.replicas !== undefined)) {
      notes.push(...switchSharded(tree, o.sharded, replicas));
      project = { ...project };
      if (o.sharded) project.sharded = true;
      else delete project.sharded;
      saveProject(tree, project);
    }
    if (certProvider !== undefined) {
      const switched = switchCertProvider(tree, project, certProvider);
      project = switched.project;
      notes.push(...switched.notes);
      saveProject(tree, project);
    }
    if (plugins.includes('grafana')) {
      const added = addGrafana(tree, project);
      project = added.project;
      notes.push(...added.notes);
      saveProject(tree, project);
    }
    if (licensing) {
      // Only new files get the new header; existing ones keep theirs (as kubebuilder's edit).
      const current = tree.read(BOILERPLATE);
      const header = licenseFile ?? boilerplateFor(o.license ?? 'apache2', o.owner ?? ownerIn(current) ?? `the ${project.projectName} authors`);
      tree.write(BOILERPLATE, header);
      note = `${BOILERPLATE} updated: files scaffolded from now on carry the new header; existing files keep theirs.`;
    }
    if (multigroup === undefined) return;
    if (!multigroup) {
      const groups = [...new Set(project.resources.filter((r) => !r.core && !r.external).map((r) => r.group))];
      if (groups.length > 1) {
        throw new OpgenError(`the project has APIs in ${groups.length} groups (${groups.join(', ')})`, { flag: '--multigroup' }, 'a single-group layout needs all APIs in one group');
      }
    }
    if (multigroup && !project.multigroup && project.resources.length > 0) {
      note = 'Existing APIs stay where they are (their paths are recorded in PROJECT); new APIs go to src/api/<group>/<version>.';
    }
    const next = { ...project };
    if (multigroup) next.multigroup = true;
    else delete next.multigroup;
    saveProject(tree, next);
  });
  if (note && !o.dryRun) ctx.out(note);
  if (!o.dryRun) for (const n of notes) ctx.out(n);
  return 0;
}
