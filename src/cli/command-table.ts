// Every opgen command, declared as data: name, arguments, options and a `run` that imports the command's
// implementation only when it runs. Building `--help` and `--version` from this table therefore loads
// no ts-morph, TypeScript or handlebars.
import { OpgenError } from '../diag/diagnostic.js';
import type { CommandContext } from '../common/command-context.js';
import { generateTargets, type GenerateTarget } from '../gen/targets.js';

export interface OptionSpec {
  /** Commander syntax: `--domain <domain>`; a plain `--force` is a boolean flag. */
  flags: string;
  description: string;
  default?: string | boolean;
  /** Accepted values, checked by the CLI. */
  choices?: readonly string[];
  /**
   * A boolean flag that is on by default (its `--no-x` form is shown in help). Every boolean flag accepts
   * `--x`, `--no-x` and kubebuilder's `--x=true|false`.
   */
  defaultTrue?: boolean;
}

export type Options = Record<string, string | boolean | undefined>;

export interface CommandSpec {
  /** Words after `opgen`, e.g. ['create', 'api']. */
  path: readonly string[];
  aliases?: readonly string[];
  /** Positional arguments in commander syntax, e.g. '[targets...]'. */
  args?: string;
  summary: string;
  options: readonly OptionSpec[];
  /** Loads the implementation and runs it; returns the exit code. */
  run(ctx: CommandContext, args: string[], options: Options): Promise<number>;
}

/** Summaries of command groups that have no action of their own. */
export const groups: Record<string, string> = {
  create: 'Scaffold a Kubernetes API (types, controller, manifests) or webhooks in an opgen project',
  'generate kustomize': 'Generate kustomize bases (operator-sdk\'s `generate kustomize`)',
  bundle: 'Work with OLM bundles',
  crd: 'Check CRD changes for upgrade safety (operator-controller\'s preflight)',
  catalog: 'Render and validate OLM file-based catalogs',
  migrate: 'Move a Go kubebuilder API to opgen',
};

const dryRun: OptionSpec = { flags: '--dry-run', description: 'print the files that would change (CREATE/UPDATE/DELETE) and write nothing' };
// The override of the CRD upgrade check against the recorded release (config/crd/released), with its reason.
const allowUnsafeCrdChanges: OptionSpec = { flags: '--allow-unsafe-crd-changes <reason>', description: 'write CRD changes that would break objects stored by the recorded release anyway, saying why' };

// Erased at build time: --help loads none of the generators.
type GenModule = typeof import('../gen/command.js');

const loadGen = (): Promise<GenModule> => import('../gen/command.js');

export const commands: readonly CommandSpec[] = [
  {
    path: ['init'],
    summary: 'Initialize a new TypeScript operator project in the current directory',
    options: [
      { flags: '--domain <domain>', description: 'domain for API groups (a DNS-1123 subdomain)', default: 'my.domain' },
      { flags: '--repo <repo>', description: 'repository of the project, e.g. github.com/example/memcached-operator' },
      { flags: '--project-name <name>', description: 'name of the project (a DNS-1123 label; default: the directory name)' },
      { flags: '--owner <owner>', description: 'copyright owner for the license header' },
      { flags: '--license <license>', description: 'license header for source files', choices: ['apache2', 'none'], default: 'apache2' },
      { flags: '--license-file <file>', description: 'your own license header for source files (one /* ... */ block; replaces --license)' },
      { flags: '--skip-install', description: 'do not install dependencies' },
      { flags: '--namespaced', description: 'a namespace-scoped operator: Roles, not ClusterRoles; watches WATCH_NAMESPACE (its own namespace)' },
      { flags: '--sharded', description: 'every replica active, each reconciling its share of the objects (createManager\'s sharding option)' },
      { flags: '--replicas <n>', description: 'replicas of a --sharded Deployment (at least 2; default 3)' },
      dryRun,
    ],
    async run(ctx, _args, o) {
      const { initCommand } = await import('../commands/init/index.js');
      return initCommand(ctx, {
        domain: str(o.domain) ?? 'my.domain',
        repo: str(o.repo),
        projectName: str(o.projectName),
        owner: str(o.owner),
        license: o.license === 'none' ? 'none' : 'apache2',
        licenseFile: str(o.licenseFile),
        skipInstall: o.skipInstall === true,
        namespaced: o.namespaced === true,
        sharded: o.sharded === true,
        replicas: str(o.replicas),
        dryRun: o.dryRun === true,
      });
    },
  },
  {
    path: ['create', 'api'],
    summary: 'Scaffold a Kubernetes API: types, controller, sample, roles and kustomize wiring',
    options: [
      { flags: '--group <group>', description: 'API group (a DNS-1123 label; group.domain must be a DNS-1123 subdomain)' },
      { flags: '--version <version>', description: 'API version, e.g. v1, v1alpha1, v2beta3' },
      { flags: '--kind <kind>', description: 'kind, PascalCase, e.g. Memcached' },
      { flags: '--plural <plural>', description: 'resource plural (default: kubebuilder\'s pluralisation of the lower-cased kind)' },
      { flags: '--namespaced', description: 'the resource is namespaced (--namespaced=false for cluster-scoped)', defaultTrue: true },
      { flags: '--resource', description: 'scaffold the types module and manifests', defaultTrue: true },
      { flags: '--controller', description: 'scaffold the controller', defaultTrue: true },
      { flags: '--controller-name <name>', description: 'name of a further controller of the kind (its own file and reconciler class)' },
      { flags: '--external-api-path <module>', description: "with --resource=false: the module exporting a kind another project owns (its type and ResourceKind)" },
      { flags: '--external-api-domain <domain>', description: 'with --external-api-path: the domain of that API group (group.domain)' },
      { flags: '--helm-chart <chart>', description: 'serve the kind with a Helm chart: a folder, a .tgz, repo/name or oci://… (docs/helm-operator.md)' },
      { flags: '--helm-chart-version <version>', description: 'with --helm-chart repo/name or oci://…: the chart version' },
      { flags: '--kube-version <version>', description: 'with --helm-chart: the Kubernetes version to render the chart for (default: PROJECT minKubeVersion)' },
      { flags: '--ansible-role [dir]', description: 'serve the kind with an Ansible role: a new roles/<kind> skeleton, or the role in <dir> copied in (docs/ansible-operator.md)' },
      { flags: '--ansible-playbook <file>', description: 'serve the kind with an Ansible playbook, copied to playbooks/ (docs/ansible-operator.md)' },
      { flags: '--force', description: 'overwrite existing files and re-create an existing API' },
      dryRun,
    ],
    async run(ctx, _args, o) {
      const { createApiCommand } = await import('../commands/create-api/index.js');
      return createApiCommand(ctx, {
        group: str(o.group),
        version: str(o.version),
        kind: str(o.kind),
        plural: str(o.plural),
        namespaced: o.namespaced !== false,
        resource: o.resource !== false,
        controller: o.controller !== false,
        force: o.force === true,
        dryRun: o.dryRun === true,
        controllerName: str(o.controllerName),
        externalApiPath: str(o.externalApiPath),
        externalApiDomain: str(o.externalApiDomain),
        helmChart: str(o.helmChart),
        helmChartVersion: str(o.helmChartVersion),
        ansibleRole: typeof o.ansibleRole === 'string' || o.ansibleRole === true ? o.ansibleRole : undefined,
        ansiblePlaybook: str(o.ansiblePlaybook),
        kubeVersion: str(o.kubeVersion),
      });
    },
  },
  {
    path: ['create', 'webhook'],
    summary: 'Scaffold defaulting, validating or conversion webhooks for a kind, with cert-manager or self-managed certificate wiring',
    options: [
      { flags: '--group <group>', description: 'API group of the kind (core, apps, batch, … for built-in kinds)' },
      { flags: '--version <version>', description: 'API version of the kind (the hub with --conversion)' },
      { flags: '--kind <kind>', description: 'kind, e.g. Memcached or Pod' },
      { flags: '--defaulting', description: 'a defaulting (mutating) webhook' },
      { flags: '--programmatic-validation', description: 'a validating webhook' },
      { flags: '--conversion', description: 'a conversion webhook; --version is the hub and becomes the storage version' },
      { flags: '--spoke <versions>', description: 'comma-separated versions converted through the hub (with --conversion)' },
      { flags: '--defaulting-path <path>', description: 'URL path of the defaulting webhook (default /mutate-<group>-<version>-<kind>)' },
      { flags: '--validation-path <path>', description: 'URL path of the validating webhook (default /validate-<group>-<version>-<kind>)' },
      { flags: '--cert-provider <name>', description: 'who provides the serving certificate: cert-manager (default), or self (the manager keeps it in a Secret and injects its CA; no cert-manager)', choices: ['cert-manager', 'self'] },
      { flags: '--force', description: 'scaffold a webhook again, overwriting its files' },
      dryRun,
    ],
    async run(ctx, _args, o) {
      const { createWebhookCommand } = await import('../commands/create-webhook/index.js');
      return createWebhookCommand(ctx, {
        group: str(o.group),
        version: str(o.version),
        kind: str(o.kind),
        defaulting: o.defaulting === true,
        validation: o.programmaticValidation === true,
        conversion: o.conversion === true,
        spoke: str(o.spoke),
        defaultingPath: str(o.defaultingPath),
        validationPath: str(o.validationPath),
        certProvider: str(o.certProvider),
        force: o.force === true,
        dryRun: o.dryRun === true,
      });
    },
  },
  {
    path: ['edit'],
    summary: 'Change project-wide settings recorded in PROJECT',
    options: [
      { flags: '--multigroup', description: 'allow APIs in several groups (types move to src/api/<group>/<version>); --multigroup=false to turn off' },
      { flags: '--license <license>', description: 'license header for files scaffolded from now on', choices: ['apache2', 'none'] },
      { flags: '--owner <owner>', description: 'copyright owner in that header' },
      { flags: '--license-file <file>', description: 'your own header for files scaffolded from now on (one /* ... */ block)' },
      { flags: '--namespaced', description: 'make the operator namespace-scoped (Roles, WATCH_NAMESPACE); --namespaced=false to go back to cluster-scoped' },
      { flags: '--watch-namespaces <a,b>', description: 'a namespace-scoped operator also watches these namespaces: WATCH_NAMESPACE, and the manager Role in each (generated); \'\' for none' },
      { flags: '--sharded', description: 'every replica active, each reconciling its share of the objects (sharding option, replicas); --sharded=false for one active replica' },
      { flags: '--replicas <n>', description: 'replicas with --sharded (at least 2; default 3)' },
      { flags: '--plugins <plugins>', description: 'add plugins (comma-separated): grafana writes Grafana dashboards and a PrometheusRule with alerts' },
      { flags: '--cert-provider <name>', description: 'move every webhook to this serving-certificate provider: cert-manager, or self (the manager keeps the certificate)', choices: ['cert-manager', 'self'] },
      dryRun,
    ],
    async run(ctx, _args, o) {
      const { editCommand } = await import('../commands/edit/index.js');
      return editCommand(ctx, {
        multigroup: typeof o.multigroup === 'boolean' ? o.multigroup : undefined,
        namespaced: typeof o.namespaced === 'boolean' ? o.namespaced : undefined,
        watchNamespaces: str(o.watchNamespaces),
        sharded: typeof o.sharded === 'boolean' ? o.sharded : undefined,
        replicas: str(o.replicas),
        license: o.license === 'none' || o.license === 'apache2' ? o.license : undefined,
        owner: str(o.owner),
        licenseFile: str(o.licenseFile),
        plugins: str(o.plugins),
        certProvider: str(o.certProvider),
        dryRun: o.dryRun === true,
      });
    },
  },
  {
    path: ['update'],
    summary: "Upgrade the project to this opgen's scaffold (a 3-way merge; conflicts left as markers)",
    options: [
      { flags: '--from <spec>', description: "the opgen that scaffolded the project, as npm installs it: a version (opgen@0.1.0), a tarball or a folder (default: opgen@<PROJECT's cliVersion>)" },
      dryRun,
    ],
    async run(ctx, _args, o) {
      const { updateCommand } = await import('../update/index.js');
      return updateCommand(ctx, { from: str(o.from), dryRun: o.dryRun === true });
    },
  },
  {
    path: ['generate'],
    aliases: ['manifests'],
    args: '[targets...]',
    summary: 'Generate CRDs, RBAC and webhook manifests from marker comments (targets: crd, rbac, webhook; default: all)',
    options: [
      { flags: '--paths <dir|glob>', description: 'TypeScript sources to scan (default: the project\'s src/)' },
      { flags: '--output-dir <dir>', description: 'write manifests under this directory instead of config/' },
      { flags: '--check', description: 'write nothing; exit 1 if the generated files are out of date' },
      dryRun,
      { flags: '--watch', description: 'generate, then regenerate what changed whenever a source changes, until Ctrl-C' },
      { flags: '--verbose', description: 'also list the markers opgen ignores: other generators\' (+genclient, +k8s:deepcopy-gen, …), with their positions' },
      allowUnsafeCrdChanges,
    ],
    async run(ctx, args, o) {
      let crd: string | undefined;
      const targets = args.map((arg) => {
        // controller-gen's spelling of generator options: crd:maxDescLen=0,crdVersions=v1
        const [t, options] = arg.split(/:(.*)/s) as [string, string | undefined];
        if (!(generateTargets as readonly string[]).includes(t)) throw unknownTarget(t);
        if (options !== undefined && t !== 'crd') throw new OpgenError(`${t} takes no options here`, { flag: arg }, `write ${t}`);
        if (options !== undefined) crd = options;
        return t as GenerateTarget;
      });
      const gen = await loadGen();
      const crdOptions = crd === undefined ? undefined : (await import('../crd/crd-options.js')).parseCrdOptions(crd);
      const options = { cwd: ctx.cwd, targets, paths: str(o.paths), outputDir: str(o.outputDir), check: o.check === true, dryRun: o.dryRun === true, verbose: o.verbose === true, ...(crdOptions ? { crd: crdOptions } : {}), ...allowUnsafe(o) };
      if (o.watch === true) {
        const { watchGenerate } = await import('../gen/watch.js');
        const stop = new AbortController();
        const onSignal = (): void => stop.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        try {
          return await watchGenerate(options, ctx, stop.signal);
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      }
      return gen.generateCommand(options, ctx.out);
    },
  },
  ...olmCommands(),
  {
    path: ['generate', 'helm'],
    summary: 'Write a Helm chart from config/default (kubebuilder helm/v2-alpha layout); a rerun merges your edits with the generated changes',
    options: [
      { flags: '--output-dir <dir>', description: 'chart folder (default: the one PROJECT records, else dist/chart)' },
      { flags: '--force', description: 'take the generated version of every file instead of merging your edits' },
      dryRun,
    ],
    async run(ctx, _args, o) {
      const { generateHelmCommand } = await import('../helm/command.js');
      return generateHelmCommand(ctx, { outputDir: str(o.outputDir), force: o.force === true, dryRun: o.dryRun === true });
    },
  },
  {
    path: ['setup-envtest'],
    args: '[version]',
    summary: 'Find, download (sha512-checked) or build kube-apiserver and etcd for tests, and print where they are',
    options: [
      { flags: '-p, --print <format>', description: 'what to print: the folder (path), an export line (env) or a summary', choices: ['overview', 'path', 'env'], default: 'overview' },
      { flags: '--index-url <url>', description: "envtest releases index (default: controller-tools' envtest-releases.yaml; or $OPGEN_ENVTEST_INDEX_URL)" },
      { flags: '--build', description: 'build with Go from the module proxy when the download fails (--no-build to only download)', defaultTrue: true },
      { flags: '--cluster', description: "also kube-controller-manager, kube-scheduler and kwok for startTestEnv({ simulatedCluster: true }), from the cache or built with Go (-p path prints their folder)" },
    ],
    async run(ctx, args, o) {
      const { setupEnvtestCommand } = await import('../commands/setup-envtest/index.js');
      const print = o.print === 'path' || o.print === 'env' ? o.print : 'overview';
      return setupEnvtestCommand(ctx, { version: args[0], print, indexUrl: str(o.indexUrl), build: o.build !== false, cluster: o.cluster === true });
    },
  },
  {
    path: ['crd', 'diff'],
    args: '<old-and-new...>',
    summary: "Check a CRD upgrade: OLM v1's upgrade-safety preflight (removed versions or fields, scope, types, bounds, enums, defaults, required) plus the guide's schema-evolution rules",
    options: [
      { flags: '--since <git-ref>', description: 'compare with the CRDs as committed at this ref (your last release tag); then pass only <new>' },
      { flags: '--kubeconfig <file>', description: "the target cluster: refuse removing or unserving a version its CRD's status.storedVersions still lists" },
      { flags: '--context <name>', description: 'kubeconfig context (default: the current one)' },
    ],
    async run(ctx, args, o) {
      const { crdDiffCommand } = await import('../crd-upgrade/command.js');
      const since = str(o.since);
      const kubeconfig = str(o.kubeconfig);
      const context = str(o.context);
      const cluster = kubeconfig === undefined && context === undefined ? {} : { cluster: { kubeconfig, context } };
      if (since !== undefined && args.length === 1) return crdDiffCommand(ctx, { old: args[0]!, new: args[0]!, since, ...cluster });
      if (args.length !== 2 || since !== undefined) throw new OpgenError(`expected ${since === undefined ? 'two arguments' : 'one argument with --since'}, got ${args.length}`, { flag: 'crd diff' }, 'run opgen crd diff <old CRDs> <new CRDs>, or opgen crd diff --since <release tag> <CRDs> (files or folders)');
      return crdDiffCommand(ctx, { old: args[0]!, new: args[1]!, ...cluster });
    },
  },
  {
    path: ['crd', 'migrate-storage'],
    args: '<crd>',
    summary: 'Rewrite every stored object of a CRD in its storage version (a StorageVersionMigration where served, else here), check, then set status.storedVersions to it alone',
    options: [
      { flags: '--kubeconfig <file>', description: 'kubeconfig to use (default: $KUBECONFIG or ~/.kube/config)' },
      { flags: '--via <path>', description: 'auto: a StorageVersionMigration when the server serves one and a controller runs it, else rewrite here', choices: ['auto', 'server', 'client'], default: 'auto' },
      { flags: '--page-size <n>', description: 'objects per list page', default: '500' },
      { flags: '--concurrency <n>', description: 'writes in flight at once', default: '8' },
      { flags: '--checkpoint <file>', description: 'where progress is kept so an interrupted run resumes (default: one file per CRD and server in the temp folder)' },
    ],
    async run(ctx, args, o) {
      const { migrateStorageCommand } = await import('../commands/crd-migrate-storage/index.js');
      if (args.length !== 1) throw new OpgenError(`expected one CRD name, got ${args.length}`, { flag: 'crd migrate-storage' }, 'run opgen crd migrate-storage backups.ops.example.com');
      const via = o.via === 'server' || o.via === 'client' ? o.via : 'auto';
      return migrateStorageCommand(ctx, { crd: args[0]!, kubeconfig: str(o.kubeconfig), via, pageSize: Number(o.pageSize ?? 500), concurrency: Number(o.concurrency ?? 8), checkpoint: str(o.checkpoint), tty: process.stderr.isTTY === true });
    },
  },
  {
    path: ['crd', 'record'],
    summary: 'Record the CRDs you release in config/crd/released (commit it with the release); generate and generate bundle then refuse changes unsafe against them',
    options: [
      { flags: '--version <release>', description: 'the release these CRDs ship in, e.g. 0.2.0' },
      { flags: '--from <dir>', description: 'the CRDs to record', default: 'config/crd/bases' },
      allowUnsafeCrdChanges,
      dryRun,
    ],
    async run(ctx, _args, o) {
      const { crdRecordCommand } = await import('../crd-upgrade/released.js');
      return crdRecordCommand(ctx, { version: str(o.version), from: str(o.from) ?? 'config/crd/bases', dryRun: o.dryRun === true, ...allowUnsafe(o) });
    },
  },
  {
    path: ['catalog', 'render'],
    summary: 'Write a file-based catalog (olm.package, olm.channel, olm.bundle) from a semver template over the project\'s bundles, its upgrade graph checked, with catalog.Dockerfile and an OLM v1 ClusterCatalog',
    options: [
      { flags: '--template <file>', description: 'semver template (schema: olm.semver); written from the bundles\' channels when missing', default: 'semver-template.yaml' },
      { flags: '--bundles <dirs>', description: 'bundle directories, comma-separated', default: 'bundle' },
      { flags: '--bundle-image <ref>', description: 'bundle image; {version} becomes each bundle\'s version (default: <package>-bundle:v{version})' },
      { flags: '--catalog-image <ref>', description: 'catalog image for the ClusterCatalog (default: <package>-catalog:latest)' },
      { flags: '--package <name>', description: 'OLM package name (default: the bundles\')' },
      { flags: '--output-dir <dir>', description: 'catalog directory', default: 'catalog' },
      { flags: '--major-channels', description: 'when writing the template: also generate <channel>-v<major> channels' },
      dryRun,
    ],
    async run(ctx, _args, o) {
      const { catalogRenderCommand } = await import('../catalog/command.js');
      return catalogRenderCommand(ctx, {
        template: str(o.template) ?? 'semver-template.yaml',
        bundles: (str(o.bundles) ?? 'bundle').split(',').map((s) => s.trim()).filter((s) => s !== ''),
        bundleImage: str(o.bundleImage),
        catalogImage: str(o.catalogImage),
        package: str(o.package),
        outputDir: str(o.outputDir) ?? 'catalog',
        majorChannels: o.majorChannels === true,
        dryRun: o.dryRun === true,
      });
    },
  },
  {
    path: ['catalog', 'validate'],
    args: '[dir]',
    summary: 'Check a file-based catalog as opm does: references, versions, default channel, one head per channel, no replaces cycle, no stranded bundle',
    options: [],
    async run(ctx, args) {
      const { catalogValidateCommand } = await import('../catalog/command.js');
      return catalogValidateCommand(ctx, { dir: args[0] ?? 'catalog' });
    },
  },
  {
    path: ['doctor'],
    summary: "Check the cluster against the project: version skew, CRDs, the operator's RBAC, webhooks and their certificates; a fix for each problem, exit 1 on an error",
    options: [
      { flags: '-o, --output <format>', description: 'table for people, json for CI', choices: ['table', 'json'], default: 'table' },
      { flags: '--kubeconfig <file>', description: 'kubeconfig to use (default: kubectl\'s: $KUBECONFIG or ~/.kube/config)' },
      { flags: '--context <name>', description: 'kubeconfig context (default: the current one)' },
      { flags: '--service-account <ns/name>', description: 'the operator\'s service account (default: the one config/default and config/rbac name)' },
    ],
    async run(ctx, _args, o) {
      const { doctorCommand } = await import('../doctor/command.js');
      return doctorCommand(ctx, { output: o.output === 'json' ? 'json' : 'table', kubeconfig: str(o.kubeconfig), context: str(o.context), serviceAccount: str(o.serviceAccount) });
    },
  },
  {
    path: ['dev'],
    args: '[operator-args...]',
    summary: 'Run the operator locally against the current context: CRDs applied first, restart on a source change, logs streamed, cleaned up on exit',
    options: [
      { flags: '--cluster', description: 'start the simulated cluster (npm run example\'s) and use it' },
      { flags: '--webhook-url <url>', description: 'the URL the cluster should call for webhooks (a tunnel to this machine); needed when the API server is not on this machine' },
      { flags: '--kubeconfig <file>', description: 'kubeconfig to use (default: $KUBECONFIG or ~/.kube/config)' },
    ],
    async run(ctx, args, o) {
      const { devCommand } = await import('../dev/dev.js');
      const stop = new AbortController();
      // A listener for every signal, not once: envtest (--cluster) re-raises a signal that no one else
      // listens to, which would kill dev before it stopped the operator. A second signal: done waiting.
      let signals = 0;
      const onSignal = (): void => {
        if (++signals > 1) process.exit(130);
        stop.abort();
      };
      // SIGHUP too (the terminal closed): the operator runs in its own process group and would be left running.
      const signalNames = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
      for (const name of signalNames) process.on(name, onSignal);
      try {
        return await devCommand(ctx, { cluster: o.cluster === true, webhookUrl: str(o.webhookUrl), kubeconfig: str(o.kubeconfig), args }, stop.signal);
      } finally {
        for (const name of signalNames) process.off(name, onSignal);
      }
    },
  },
  {
    path: ['debug'],
    summary: 'Apply config/overlays/debug (kustomize) into a debug namespace and port-forward the manager\'s metrics and health ports on 127.0.0.1 only',
    options: [
      { flags: '-n, --namespace <ns>', description: 'debug namespace (default: <project>-debug)' },
      { flags: '--port-forward', description: 'wait for the manager and port-forward until Ctrl-C (--no-port-forward: apply and print the command)', defaultTrue: true },
      { flags: '--kubeconfig <file>', description: 'kubeconfig to use (default: kubectl\'s)' },
      { flags: '--context <name>', description: 'kubeconfig context (default: the current one)' },
    ],
    async run(ctx, _args, o) {
      const { debugCommand } = await import('../dev/debug.js');
      return debugCommand(ctx, { namespace: str(o.namespace), portForward: o.portForward !== false, kubeconfig: str(o.kubeconfig), context: str(o.context) });
    },
  },
  {
    path: ['markers'],
    summary: 'List the marker comments opgen understands, with their arguments',
    options: [],
    async run(ctx) {
      const gen = await loadGen();
      await gen.markersCommand(ctx.out);
      return 0;
    },
  },
  {
    path: ['migrate', 'api'],
    args: '<go-package-dirs...>',
    summary: 'Migrate a Go kubebuilder API package to TypeScript types with the same markers (needs Go)',
    options: [
      { flags: '--output <dir>', description: 'folder for the TypeScript API (one subfolder per Go package)' },
      { flags: '--force', description: 'overwrite files migrated before' },
      dryRun,
    ],
    async run(ctx, args, o) {
      const { migrateApiCommand } = await import('../migrate/command.js');
      return migrateApiCommand(ctx, { dirs: args, output: str(o.output), force: o.force === true, dryRun: o.dryRun === true });
    },
  },
  {
    path: ['migrate', 'project'],
    args: '<kubebuilder-project>',
    summary: 'Migrate a kubebuilder project: a new opgen project with its resources, migrated API, samples and controllers (needs Go)',
    options: [{ flags: '--output <dir>', description: 'a new folder for the opgen project' }],
    async run(ctx, args, o) {
      const { migrateProjectCommand } = await import('../migrate/project.js');
      return migrateProjectCommand(ctx, { dir: args[0], output: str(o.output) });
    },
  },
];

function str(v: string | boolean | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function unknownTarget(t: string): OpgenError {
  return new OpgenError(`unknown target '${t}'`, { flag: 'generate' }, `use one or more of: ${generateTargets.join(', ')}`);
}

// The override's reason, which must say something.
function allowUnsafe(o: Record<string, string | boolean | undefined>): { allowUnsafeCrdChanges?: string } {
  const reason = str(o.allowUnsafeCrdChanges);
  if (reason === undefined) return {};
  if (reason.trim() === '') throw new OpgenError('the override needs a reason', { flag: '--allow-unsafe-crd-changes' }, "say why the break is intended, e.g. --allow-unsafe-crd-changes 'v1alpha1 has no users yet'");
  return { allowUnsafeCrdChanges: reason };
}

// OLM (operator-sdk's half): the base CSV, bundles, their validation and a file-based catalog. After
// `generate`, whose subcommands they are.
type OlmModule = typeof import('../olm/command.js');
const loadOlm = (): Promise<OlmModule> => import('../olm/command.js');

function olmCommands(): CommandSpec[] {
  const pkg: OptionSpec = { flags: '--package <name>', description: 'OLM package name (default: the project name)' };
  return [
    {
      path: ['generate', 'kustomize', 'manifests'],
      summary: 'Write config/manifests: the base ClusterServiceVersion (your hand-written fields, kept on rerun) and its kustomization',
      options: [pkg, dryRun],
      async run(ctx, _args, o) {
        return (await loadOlm()).kustomizeManifestsCommand(ctx, { package: str(o.package), dryRun: o.dryRun === true });
      },
    },
    {
      path: ['generate', 'bundle'],
      summary: 'Render config/manifests with kubectl kustomize and write an OLM bundle (manifests/, metadata/, bundle.Dockerfile)',
      options: [
        { flags: '--version <semver>', description: 'the operator version, e.g. 0.1.0 (spec.version; the CSV is named <package>.v<version>)' },
        { flags: '--channels <a,b>', description: 'channels of the bundle (default: those of the last bundle, else alpha)' },
        { flags: '--default-channel <name>', description: 'default channel (one of --channels; default: the first)' },
        pkg,
        { flags: '--replaces <csv name>', description: 'the CSV this version replaces, e.g. memcached-operator.v0.0.1' },
        { flags: '--skip-range <range>', description: 'olm.skipRange, e.g. ">=0.1.0 <0.2.0"' },
        { flags: '--output-dir <dir>', description: 'bundle directory', default: 'bundle' },
        { flags: '--use-image-digests', description: 'pin container images by digest, asking their registries' },
        allowUnsafeCrdChanges,
        dryRun,
      ],
      async run(ctx, _args, o) {
        return (await loadOlm()).generateBundleCommand(ctx, {
          version: str(o.version),
          channels: str(o.channels),
          defaultChannel: str(o.defaultChannel),
          package: str(o.package),
          replaces: str(o.replaces),
          skipRange: str(o.skipRange),
          outputDir: str(o.outputDir) ?? 'bundle',
          useImageDigests: o.useImageDigests === true,
          dryRun: o.dryRun === true,
          ...allowUnsafe(o),
        });
      },
    },
    {
      path: ['generate', 'catalog'],
      summary: 'Write a file-based catalog (olm.package, olm.channel, olm.bundle) from bundle directories, with catalog.Dockerfile and a CatalogSource',
      options: [
        { flags: '--bundles <dirs>', description: 'bundle directories, comma-separated', default: 'bundle' },
        pkg,
        { flags: '--default-channel <name>', description: 'the package\'s default channel (default: that of the newest bundle)' },
        { flags: '--bundle-image <ref>', description: 'bundle image; {version} becomes each bundle\'s version (default: <package>-bundle:v{version})' },
        { flags: '--catalog-image <ref>', description: 'catalog image for the CatalogSource (default: <package>-catalog:latest)' },
        { flags: '--output-dir <dir>', description: 'catalog directory', default: 'catalog' },
        dryRun,
      ],
      async run(ctx, _args, o) {
        return (await loadOlm()).generateCatalogCommand(ctx, {
          bundles: (str(o.bundles) ?? 'bundle').split(',').map((s) => s.trim()).filter((s) => s !== ''),
          package: str(o.package),
          defaultChannel: str(o.defaultChannel),
          bundleImage: str(o.bundleImage),
          catalogImage: str(o.catalogImage),
          outputDir: str(o.outputDir) ?? 'catalog',
          dryRun: o.dryRun === true,
        });
      },
    },
    {
      path: ['bundle', 'validate'],
      args: '[dir]',
      summary: 'Check an OLM bundle without a cluster: one line per problem; errors exit 1, warnings exit 0',
      options: [
        { flags: '--select-optional <selector>', description: 'also run an optional suite: suite=operatorframework' },
        { flags: '--olm-v1', description: 'also check what OLM v1 (operator-controller) refuses: install modes, dependencies, webhooks, API services, object kinds' },
        { flags: '--watch-namespace <ns>', description: 'with --olm-v1: the ClusterExtension\'s watchNamespace configuration (default: none, all namespaces)' },
        { flags: '--install-namespace <ns>', description: 'with --olm-v1: the namespace it installs into (tells OwnNamespace from SingleNamespace)' },
        { flags: '--webhook-provider <name>', description: 'with --olm-v1: operator-controller runs with this webhook certificate provider', choices: ['cert-manager', 'openshift-serviceca'] },
      ],
      async run(ctx, args, o) {
        if (o.olmV1 === true) {
          const { validateOlmV1Command } = await import('../olm-v1/command.js');
          return validateOlmV1Command(ctx, { dir: args[0] ?? 'bundle', selectOptional: str(o.selectOptional), watchNamespace: str(o.watchNamespace), installNamespace: str(o.installNamespace), webhookProvider: str(o.webhookProvider) });
        }
        const v1Only = ['watchNamespace', 'installNamespace', 'webhookProvider'].find((k) => o[k] !== undefined);
        if (v1Only) throw new OpgenError(`--${v1Only.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --olm-v1`, { flag: 'bundle validate' }, 'add --olm-v1');
        return (await loadOlm()).validateBundleCommand(ctx, { dir: args[0] ?? 'bundle', selectOptional: str(o.selectOptional) });
      },
    },
  ];
}
