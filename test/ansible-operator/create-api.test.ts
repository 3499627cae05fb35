// `create api --ansible-role` / `--ansible-playbook` on a fresh opgen project: what it writes (operator-sdk's
// layout), that `opgen generate`, tsc and kubectl kustomize accept it, that `opgen generate` refuses a bad
// watches.yaml at its line, and that bad input leaves the project as it was.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { opgen, opgenOk } from '../../src/testdata/cli.js';
import { snapshot, tempDir } from '../../src/testdata/files.js';
import { tscErrors } from '../../src/testdata/tsc.js';
import { loadWatches } from '../../runtime/src/ansible/index.js';

const memcachedRole = fileURLToPath(new URL('./testdata/memcached-operator/roles/memcached', import.meta.url));

let dir: string;
let cleanup: () => void;
const read = (p: string): string => readFileSync(join(dir, p), 'utf8');

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('opgen-ansible-api-', 'memcached-operator'));
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
  // An existing role (operator-sdk's tutorial shape) copied in, and a new skeleton for a second kind.
  const r = await opgen(dir, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--ansible-role', memcachedRole);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('CREATE src/controller/memcached-ansible.ts');
  const s = await opgen(dir, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Redis', '--ansible-role');
  expect(s.stderr).toBe('');
  expect(s.code).toBe(0);
}, 120_000);
afterAll(() => cleanup?.());

describe('create api --ansible-role', () => {
  it('copies the role to roles/<name>, writes a skeleton for a new one, and records both in watches.yaml as operator-sdk does', () => {
    expect(read('roles/memcached/tasks/main.yml')).toBe(readFileSync(join(memcachedRole, 'tasks/main.yml'), 'utf8'));
    expect(read('roles/memcached/defaults/main.yml')).toBe(readFileSync(join(memcachedRole, 'defaults/main.yml'), 'utf8'));
    expect(read('roles/redis/tasks/main.yml')).toContain('ansible_operator_meta.name');
    expect(parse(read('roles/redis/meta/main.yml')).collections).toEqual(['kubernetes.core']);
    expect(parse(read('watches.yaml'))).toEqual([
      { version: 'v1alpha1', group: 'cache.example.com', kind: 'Memcached', role: 'memcached' },
      { version: 'v1alpha1', group: 'cache.example.com', kind: 'Redis', role: 'redis' },
    ]);
    // The runtime's reader accepts it as the manager will read it.
    expect(loadWatches(join(dir, 'watches.yaml')).map((w) => w.role)).toEqual([join(dir, 'roles/memcached'), join(dir, 'roles/redis')]);
  });

  it('writes a CRD with open spec and status (status a subresource) and a sample from the role\'s defaults', () => {
    const crd = parse(read('config/crd/bases/cache.example.com_memcacheds.yaml'));
    const version = crd.spec.versions[0];
    expect(version.subresources).toEqual({ status: {} });
    expect(version.schema.openAPIV3Schema.properties.spec['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(version.schema.openAPIV3Schema.properties.status['x-kubernetes-preserve-unknown-fields']).toBe(true);
    const sample = parse(read('config/samples/cache_v1alpha1_memcached.yaml'));
    expect(sample).toMatchObject({ apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', spec: { size: 1, servicePort: 11211 } });
  });

  it('the controller module has RBAC markers and dependent watches for the kinds the role\'s files name, and main.ts registers it', () => {
    const module = read('src/controller/memcached-ansible.ts');
    expect(module).toContain('// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete\n');
    expect(module).toContain('// +kubebuilder:rbac:groups=core,resources=services,verbs=get;list;watch;create;update;patch;delete\n');
    expect(module).toContain("  groupVersion('apps', 'v1').kind('Deployment', { plural: 'deployments', namespaced: true }),\n");
    expect(read('src/controller/redis-ansible.ts')).not.toContain('resources=deployments');
    const main = read('src/main.ts');
    expect(main).toContain("import { setupMemcachedAnsible } from './controller/memcached-ansible.js';");
    expect(main).toContain('  setupMemcachedAnsible(mgr);');
    const project = parse(read('PROJECT'));
    expect(project.plugins['ansible.opgen.dev/v1']).toEqual({ resources: [
      { group: 'cache', version: 'v1alpha1', kind: 'Memcached', role: 'memcached' },
      { group: 'cache', version: 'v1alpha1', kind: 'Redis', role: 'redis' },
    ] });
  });

  it('gives the image ansible-runner, the collections and the roles, and the read-only manager a writable /tmp', () => {
    const docker = read('Dockerfile');
    expect(docker).toContain('apt-get install -y --no-install-recommends ansible python3-ansible-runner python3-kubernetes');
    expect(docker).not.toContain('distroless');
    expect(docker).toContain('COPY watches.yaml /watches.yaml\nCOPY roles/ /roles/\n');
    expect(docker.match(/COPY roles\//g)).toHaveLength(1);
    expect(docker).toContain('ENTRYPOINT ["/usr/local/bin/node"');
    const manager = parseAllDocuments(read('config/manager/manager.yaml')).map((d) => d.toJS()).find((o) => o?.kind === 'Deployment');
    expect(manager.spec.template.spec.volumes).toEqual([{ name: 'ansible-tmp', emptyDir: {} }]);
  });

  it('opgen generate turns the markers into role.yaml rules; tsc compiles the project; kustomize renders the CRD', async () => {
    await opgenOk(dir, 'generate');
    const rules = parse(read('config/rbac/role.yaml')).rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    expect(rules.find((r) => r.apiGroups.includes('apps') && r.resources.includes('deployments'))?.verbs).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    expect(rules.find((r) => r.apiGroups.includes('cache.example.com') && r.resources.includes('memcacheds/status'))).toBeDefined();
    const output = tscErrors(join(dir, 'tsconfig.check.json'), { extends: join(dir, 'tsconfig.json'), include: [join(dir, 'src', '**', '*.ts')], entries: ['ansible', 'envtest', 'kubernetes'], vitest: true });
    expect(output).toBe('');
    expect(execFileSync('kubectl', ['kustomize', join(dir, 'config/default')], { encoding: 'utf8' })).toContain('name: memcacheds.cache.example.com');
  }, 180_000);
});

describe('create api --ansible-playbook', () => {
  it('copies the playbook to playbooks/ and names it in watches.yaml', async () => {
    const pb = join(dir, '..', 'site.yml');
    writeFileSync(pb, '- hosts: localhost\n  gather_facts: false\n  tasks:\n  - ansible.builtin.debug:\n      msg: "{{ ansible_operator_meta.name }}"\n');
    expect((await opgen(dir, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Site', '--ansible-playbook', pb)).code).toBe(0);
    expect(read('playbooks/site.yml')).toBe(readFileSync(pb, 'utf8'));
    expect((parse(read('watches.yaml')) as unknown[])[2]).toEqual({ version: 'v1', group: 'cache.example.com', kind: 'Site', playbook: 'playbooks/site.yml' });
    expect(read('Dockerfile')).toContain('COPY roles/ /roles/\nCOPY playbooks/ /playbooks/\n');
  }, 60_000);
});

describe('a bad watches.yaml: opgen generate refuses it at its line, with the fix', () => {
  const withWatches = async (text: string): Promise<string> => {
    const before = read('watches.yaml');
    writeFileSync(join(dir, 'watches.yaml'), text);
    try {
      const r = await opgen(dir, 'generate');
      expect(r.code).toBe(1);
      return r.stderr.trim();
    } finally {
      writeFileSync(join(dir, 'watches.yaml'), before);
    }
  };
  const entry = '- version: v1alpha1\n  group: cache.example.com\n  kind: Memcached\n';

  it('a missing role, an unknown key, a duplicate GVK', async () => {
    expect(await withWatches(`${entry}  role: memcache\n`)).toBe('watches.yaml:4:9: error: role memcache not found (looked in roles/memcache) (create roles/memcache (opgen create api --ansible-role) or fix the name)');
    expect(await withWatches(`${entry}  role: memcached\n  reconcilePeriode: 1m\n`)).toBe('watches.yaml:5:3: error: unknown key "reconcilePeriode" in an entry (did you mean reconcilePeriod?)');
    expect(await withWatches(`${entry}  role: memcached\n${entry}  role: redis\n`)).toBe('watches.yaml:5:3: error: a second entry for Memcached.cache.example.com/v1alpha1 (the first is on line 1) (keep one entry per group, version and kind)');
  }, 60_000);
});

describe('create api --ansible-role refuses in one line, leaving the project unchanged', () => {
  it('a folder that is no role, a missing playbook, both flags, the same kind again', async () => {
    const before = snapshot(dir);
    const empty = join(dir, '..', 'not-a-role');
    mkdirSync(empty, { recursive: true });
    const cases: Array<[string[], string]> = [
      [['--kind', 'Other', '--ansible-role', empty], `--ansible-role: error: ${empty} has no tasks/main.yml (pass the folder of a role)`],
      [['--kind', 'Other', '--ansible-playbook', 'nope.yml'], '--ansible-playbook: error: nope.yml: no such file (pass the path of a playbook (.yml))'],
      [['--kind', 'Memcached', '--ansible-role', memcachedRole], '--kind: error: API cache/v1alpha1, Kind=Memcached already exists (pass --force to write it again)'],
      [['--kind', 'Other', '--ansible-role', '--resource=false'], "--resource: error: cannot be combined with --ansible-role: the kind is this project's own API, with its CRD (drop --resource)"],
    ];
    for (const [args, message] of cases) {
      const r = await opgen(dir, 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', ...args);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(message);
    }
    expect(snapshot(dir)).toEqual(before);
  }, 60_000);
});
