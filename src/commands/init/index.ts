// `opgen init`: a complete TypeScript operator project in the current directory.
import { basename } from 'node:path';
import type { CommandContext } from '../../common/command-context.js';
import { opgenVersion } from '../../common/version.js';
import { OpgenError } from '../../diag/diagnostic.js';
import { checkDns1123Label, checkDns1123Subdomain } from '../../naming/index.js';
import { LAYOUT, saveProject, type ProjectConfig } from '../../project/index.js';
import { renderTemplates, Tree } from '../../scaffold/index.js';
import { boilerplateFor, readLicenseFile } from '../shared/license.js';
import { shardedReplicas } from '../edit/sharded.js';
import { sourceHeader, stageAndCommit } from '../shared/run-in-tree.js';

export interface InitOptions {
  domain: string;
  repo?: string;
  projectName?: string;
  owner?: string;
  license: 'apache2' | 'none';
  /** A header of the user's own for new source files (one /* ... *\/ block); replaces --license. */
  licenseFile?: string;
  skipInstall: boolean;
  /** A namespace-scoped operator: Roles instead of ClusterRoles, WATCH_NAMESPACE from the pod's namespace. */
  namespaced?: boolean;
  /** Every replica active, each reconciling its share of the objects (createManager's `sharding: true`). */
  sharded?: boolean;
  /** --replicas: the Deployment's replicas of a sharded project (default 3). */
  replicas?: string;
  dryRun: boolean;
}

/** Files whose presence means the directory already holds a project. */
const PROJECT_MARKERS = ['PROJECT', 'package.json', 'src/main.ts'];

export async function initCommand(ctx: CommandContext, o: InitOptions): Promise<number> {
  const projectName = o.projectName ?? basename(ctx.cwd).toLowerCase();
  const nameProblem = checkDns1123Label(projectName);
  if (nameProblem) {
    throw o.projectName === undefined
      ? new OpgenError(`the directory name "${projectName}" is not a valid project name: it ${nameProblem}`, { flag: '--project-name' }, 'pass --project-name <name>')
      : new OpgenError(`invalid project name "${projectName}": it ${nameProblem}`, { flag: '--project-name' });
  }
  const domainProblem = checkDns1123Subdomain(o.domain);
  if (domainProblem) throw new OpgenError(`invalid domain "${o.domain}": it ${domainProblem}`, { flag: '--domain' });

  const probe = new Tree(ctx.cwd);
  const existing = PROJECT_MARKERS.find((f) => probe.exists(f));
  if (existing) {
    throw new OpgenError('this directory already holds a project', { file: existing }, 'run `opgen init` in an empty directory, or use `opgen create api` to extend this one');
  }

  const replicas = shardedReplicas(o.sharded === true, o.replicas);
  const licenseFile = o.licenseFile !== undefined ? readLicenseFile(ctx.cwd, o.licenseFile) : undefined;
  // hack/boilerplate.ts.txt, and the header of the files init writes.
  const boilerplate = licenseFile ?? boilerplateFor(o.license, o.owner ?? `the ${projectName} authors`);
  const data = {
    boilerplate,
    projectName,
    domain: o.domain,
    repo: o.repo ?? '',
    opgenVersion: opgenVersion(),
    leaderElectionID: `${fnv32a(o.repo ?? projectName)}.${o.domain}`,
    header: sourceHeader(boilerplate),
    namespaced: o.namespaced === true,
    sharded: o.sharded === true,
    replicas,
  };
  const project: ProjectConfig = {
    version: '3',
    layout: [LAYOUT],
    domain: o.domain,
    projectName,
    ...(o.repo ? { repo: o.repo } : {}),
    ...(o.namespaced ? { namespaced: true } : {}),
    ...(o.sharded ? { sharded: true } : {}),
    cliVersion: opgenVersion(),
    resources: [],
  };

  stageAndCommit(ctx, o.dryRun, (tree) => {
    renderTemplates(tree, 'init', { data });
    saveProject(tree, project);
  });
  if (o.dryRun) return 0;

  if (!o.skipInstall) await installDependencies(ctx);
  ctx.out('Next: define a resource (your own group, version and kind), for example:');
  // opgen is a dev dependency of the project, not on PATH: npx finds it in node_modules/.bin. A real
  // example rather than <placeholders>, so the line works when pasted as it is.
  ctx.out('$ npx opgen create api --group cache --version v1alpha1 --kind Memcached');
  return 0;
}

/** Installs with the package manager that ran opgen (npx/npm, pnpm dlx, yarn), npm by default. */
async function installDependencies(ctx: CommandContext): Promise<void> {
  const agent = process.env.npm_config_user_agent ?? '';
  const pm = agent.startsWith('pnpm/') ? 'pnpm' : agent.startsWith('yarn/') ? 'yarn' : 'npm';
  ctx.out(`Installing dependencies with ${pm} install...`);
  const { execa } = await import('execa');
  const result = await execa(pm, ['install'], { cwd: ctx.cwd, stdio: 'inherit', reject: false });
  if (result.failed) {
    throw new OpgenError(`\`${pm} install\` failed (${result.shortMessage})`, { flag: '--skip-install' }, `the project files are written; fix the problem and run \`${pm} install\`; if your registry lacks opgen or @opgen/runtime, install their packed tarballs instead: \`${pm} ${pm === 'npm' ? 'install' : 'add'} <path>/opgen-${opgenVersion()}.tgz <path>/opgen-runtime-${opgenVersion()}.tgz\``);
  }
}

/** 32-bit FNV-1a as lower-case hex: a stable, short leader-election ID prefix (kubebuilder hashes the repo too). */
function fnv32a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
