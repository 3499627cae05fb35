// bench/generate: how fast `opgen generate` is on a large API, against the tools a user compares it with.
// Generates an API of --kinds kinds × --fields spec fields twice — TypeScript types in a scaffolded opgen
// project and the equivalent Go types — in a temp folder, then times (median of --runs, after one warm-up):
//   opgen generate crd            in the project (the built CLI, bin/opgen.js)
//   controller-gen crd            on the Go twin (.ci/controller-gen.sh's binary)
//   tsc --noEmit                  on the same TypeScript files
//   opgen generate --check        on the unchanged project (all generators)
//   opgen generate crd --watch    one field of one kind changed: from the write to the CRD written
//   opgen generate crd            again with CEL rules on every kind's spec (each checked: parse, types, cost)
// and prints the medians and ratios. Targets (from issue 3): opgen no slower than tsc on the same files and
// faster than controller-gen; --check well under a second. From issue 14: watch mode ≤ 0.25× a full
// `opgen generate crd`, CEL rules on every kind ≤ 1.2× the API without them.
// Usage: npm run bench:generate -- --kinds 100 --fields 30 --runs 5 [--keep]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Handlebars from 'handlebars';
import { parseAllDocuments } from 'yaml';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const templates = join(repo, 'bench', 'generate', 'templates');
const opgenBin = join(repo, 'bin', 'opgen.js');
const tscBin = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
const GROUP = 'bench.bench.opgen.dev';

const { values } = parseArgs({
  options: {
    kinds: { type: 'string', default: '100' },
    fields: { type: 'string', default: '30' },
    runs: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
  },
});
const positive = (flag: string, v: string | undefined): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:generate: --${flag} ${v} is not a positive whole number; pass e.g. --${flag} 5`);
    process.exit(2);
  }
  return n;
};
const kinds = positive('kinds', values.kinds);
const fieldCount = positive('fields', values.fields);
const runs = positive('runs', values.runs);

interface Field {
  name: string;
  goName: string;
  doc: string;
  markers: string[];
  tsType: string;
  goType: string;
  optional: boolean;
}

/** Ten field shapes, cycled: validated strings and numbers, lists, maps, enums, structs, known types. */
function field(i: number): Field {
  const shape = i % 10;
  const base = (name: string, doc: string, tsType: string, goType: string, markers: string[], optional = true): Field => ({
    name: `${name}${i}`,
    goName: `${name.charAt(0).toUpperCase()}${name.slice(1)}${i}`,
    doc: `${name.charAt(0).toUpperCase()}${name.slice(1)}${i} ${doc}`,
    markers,
    tsType,
    goType,
    optional,
  });
  switch (shape) {
    case 0: return base('name', 'is a DNS label.', 'string', 'string', ['+kubebuilder:validation:MinLength=1', '+kubebuilder:validation:MaxLength=63'], false);
    case 1: return base('count', 'counts things.', 'int32', 'int32', ['+kubebuilder:validation:Minimum=0', '+kubebuilder:validation:Maximum=1000']);
    case 2: return base('enabled', 'turns a feature on.', 'boolean', 'bool', []);
    case 3: return base('tags', 'are free-form tags.', 'string[]', '[]string', ['+kubebuilder:validation:MaxItems=16', '+listType=set']);
    case 4: return base('labels', 'are copied to children.', 'Record<string, string>', 'map[string]string', []);
    case 5: return base('mode', 'selects the behaviour.', 'Mode', 'Mode', []);
    case 6: return base('endpoint', 'is where to connect.', 'Endpoint', '*Endpoint', []);
    case 7: return base('limit', 'caps the work.', 'int64', '*int64', ['+kubebuilder:default=5']);
    case 8: return base('memory', 'is a resource quantity.', 'Quantity', '*resource.Quantity', []);
    default: return base('since', 'is a timestamp.', 'Time', '*metav1.Time', []);
  }
}

function render(template: string, context: object): string {
  return Handlebars.compile(readFileSync(join(templates, template), 'utf8'), { noEscape: true })(context);
}

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * CPU time (user + system, ms) used so far by this process's finished children and their waited-for
 * descendants (go list under controller-gen included), from /proc/self/stat; undefined off Linux.
 * Wall time suffers when other work shares the cores; CPU time much less.
 */
function childrenCpuMs(): number | undefined {
  // Fields 16 and 17 of proc(5), cutime and cstime.
  return procStatCpuMs('self', 13);
}

/**
 * Two adjacent CPU-time fields of /proc/<pid>/stat summed, in ms: `at` indexes the fields after the
 * command name (proc(5)'s field 3 is index 0). Clock ticks are 100 per second on Linux.
 */
function procStatCpuMs(pid: number | 'self', at: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[at]) + Number(fields[at + 1])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

interface Timing {
  wall: number[];
  cpu: number[];
}

/** One warm-up run, then `runs` timed runs; milliseconds of wall time and of CPU time. */
function time(label: string, cmd: string, args: string[], cwd: string): Timing {
  run(cmd, args, cwd);
  const out: Timing = { wall: [], cpu: [] };
  for (let i = 0; i < runs; i++) {
    const cpu0 = childrenCpuMs();
    const t0 = performance.now();
    run(cmd, args, cwd);
    out.wall.push(performance.now() - t0);
    const cpu1 = childrenCpuMs();
    if (cpu0 !== undefined && cpu1 !== undefined) out.cpu.push(cpu1 - cpu0);
  }
  process.stderr.write(`bench:generate: timed ${label}\n`);
  return out;
}

/** CPU time (user + system, ms) a running process has used, from /proc/<pid>/stat; undefined off Linux. */
function processCpuMs(pid: number): number | undefined {
  // Fields 14 and 15 of proc(5), utime and stime.
  return procStatCpuMs(pid, 11);
}

interface WatchTiming extends Timing {
  /** What the watcher says the run took (from its status line): the wall time without the debounce. */
  reported: number[];
  exitCode: number | null;
}

/**
 * `opgen generate crd --watch` in the project: after its first (full) run, one field of one kind is changed
 * (its MaxLength flipped), one warm-up and `runs` times; each is timed from the write until the watcher has
 * written the CRD and printed its status line (its 100 ms debounce included). CPU time is the watcher's own.
 */
async function timeWatch(project: string): Promise<WatchTiming> {
  const child = spawn(process.execPath, [opgenBin, 'generate', 'crd', '--watch'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => void (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => void (err += s));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const waitFor = async (from: number, re: RegExp): Promise<RegExpExecArray> => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const m = re.exec(out.slice(from));
      if (m) return m;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`opgen generate --watch: no ${String(re)}:\n${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  const kind = `kind${String(Math.floor(kinds / 2)).padStart(3, '0')}`;
  const file = join(project, 'src', 'api', 'v1', `${kind}-types.ts`);
  const crdFile = join(project, 'config', 'crd', 'bases', `${GROUP}_${kind}s.yaml`);
  const original = readFileSync(file, 'utf8');
  if (!original.includes('MaxLength=63')) throw new Error(`${file} has no MaxLength=63 to change`);
  const timing: WatchTiming = { wall: [], cpu: [], reported: [], exitCode: null };
  try {
    await waitFor(0, /^generated in \d+ ms/m);
    for (let i = 0; i <= runs; i++) {
      const from = out.length;
      const cpu0 = processCpuMs(child.pid!);
      const t0 = performance.now();
      writeFileSync(file, i % 2 === 0 ? original.replace('MaxLength=63', 'MaxLength=64') : original);
      const m = await waitFor(from, /^regenerated in (\d+) ms[^\n]*\n/m);
      const wall = performance.now() - t0;
      const cpu1 = processCpuMs(child.pid!);
      if (!out.slice(from).includes(`UPDATE config/crd/bases/${GROUP}_${kind}s.yaml`)) throw new Error(`opgen generate --watch did not update ${crdFile}:\n${out.slice(from)}`);
      if (i === 0) continue; // warm-up
      timing.wall.push(wall);
      timing.reported.push(Number(m[1]));
      if (cpu0 !== undefined && cpu1 !== undefined) timing.cpu.push(cpu1 - cpu0);
    }
  } finally {
    writeFileSync(file, original);
    child.kill('SIGINT');
    timing.exitCode = await exited;
  }
  process.stderr.write('bench:generate: timed opgen generate crd --watch\n');
  return timing;
}

/** CEL rules over the spec fields that exist (the first shapes: a DNS label, a count, tags). */
function celRules(fields: Field[]): string[] {
  const has = (n: string): boolean => fields.some((f) => f.name === n);
  const rules = ["self.name0.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')", "!has(oldSelf.name0) || self.name0 == oldSelf.name0"];
  if (has('count1')) rules.push('!has(self.count1) || self.count1 % 2 == 0');
  if (has('tags3')) rules.push("!has(self.tags3) || self.tags3.all(t, t.size() < 64 && !t.startsWith('-'))");
  return rules;
}

function writeApi(project: string, goDir: string, withCel = false): void {
  const fields = Array.from({ length: fieldCount }, (_, i) => field(i));
  const tsTypes = new Set(fields.map((f) => f.tsType));
  const runtimeImports = ['Condition', 'ListMeta', 'ObjectMeta', 'int64']
    .concat(['int32', 'Quantity', 'Time'].filter((t) => tsTypes.has(t)))
    .sort((a, b) => a.localeCompare(b));
  const commonImports = ['Endpoint', 'Mode'].filter((t) => tsTypes.has(t)).join(', ');
  const printField = fields.find((f) => f.tsType === 'Mode')?.name ?? fields[0]!.name;
  const tsApi = join(project, 'src', 'api', 'v1');
  const goApi = join(goDir, 'api', 'v1');
  mkdirSync(goApi, { recursive: true });
  writeFileSync(join(tsApi, 'common-types.ts'), render('common-types.ts.hbs', { group: GROUP }));
  writeFileSync(join(goApi, 'common_types.go'), render('common_types.go.hbs', { group: GROUP }));
  for (let k = 0; k < kinds; k++) {
    const kind = `Kind${String(k).padStart(3, '0')}`;
    const context = { kind, index: k, fields, printField, runtimeImports: runtimeImports.join(', '), commonImports, usesQuantity: tsTypes.has('Quantity'), celRules: withCel ? celRules(fields) : [] };
    writeFileSync(join(tsApi, `${kind.toLowerCase()}-types.ts`), render('kind-types.ts.hbs', context));
    if (!withCel) writeFileSync(join(goApi, `${kind.toLowerCase()}_types.go`), render('kind_types.go.hbs', context));
  }
}

/** Parsed CRDs by file name, without the generator's version annotation. */
function crds(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    const docs = parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((d) => d.toJS() as { metadata?: { annotations?: Record<string, string> } } | null);
    for (const d of docs) if (d?.metadata) delete d.metadata.annotations;
    out.set(file, JSON.stringify(docs.filter(Boolean)));
  }
  return out;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'opgen-bench-generate-'));
  const project = join(work, 'project');
  const goDir = join(work, 'go');
  try {
    const controllerGen = process.env.OPGEN_CONTROLLER_GEN ?? execFileSync('bash', [join(repo, '.ci', 'controller-gen.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    mkdirSync(project);
    run(process.execPath, [opgenBin, 'init', '--domain', 'bench.opgen.dev', '--skip-install'], project);
    run(process.execPath, [opgenBin, 'create', 'api', '--group', 'bench', '--version', 'v1', '--kind', 'Kind000', '--controller=false'], project);
    // The repository's node_modules stands in for `npm install` (it holds @opgen/runtime and its types).
    symlinkSync(join(repo, 'node_modules'), join(project, 'node_modules'), 'dir');
    mkdirSync(goDir);
    copyFileSync(join(repo, 'test', 'parity', 'go', 'go.mod'), join(goDir, 'go.mod'));
    copyFileSync(join(repo, 'test', 'parity', 'go', 'go.sum'), join(goDir, 'go.sum'));
    writeFileSync(join(goDir, 'go.mod'), readFileSync(join(goDir, 'go.mod'), 'utf8').replace(/^module .*$/m, 'module opgen.dev/bench'));
    writeApi(project, goDir);
    writeFileSync(join(project, 'tsconfig.bench.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true }, include: ['src/api/**/*.ts'] }, null, 2));
    const tsFiles = readdirSync(join(project, 'src', 'api', 'v1')).length;
    process.stderr.write(`bench:generate: ${kinds} kinds × ${fieldCount} fields in ${work} (${tsFiles} TypeScript files)\n`);

    const opgen = time('opgen generate crd', process.execPath, [opgenBin, 'generate', 'crd'], project);
    const watch = await timeWatch(project);
    // The watcher's last run restored the file; a full run makes sure the CRDs are the unchanged API's.
    run(process.execPath, [opgenBin, 'generate', 'crd'], project);
    const cg = time('controller-gen crd', controllerGen, ['crd', 'paths=./...', 'output:crd:dir=out'], goDir);
    const tsc = time('tsc --noEmit', process.execPath, [tscBin, '-p', 'tsconfig.bench.json'], project);
    // --check needs every generator's files in place first; a failure is reported, not hidden.
    let check: Timing | undefined;
    let checkFailure = '';
    try {
      run(process.execPath, [opgenBin, 'generate'], project);
      check = time('opgen generate --check', process.execPath, [opgenBin, 'generate', '--check'], project);
    } catch (err) {
      checkFailure = (err as Error).message.split('\n').slice(0, 3).join(' | ');
    }

    const ours = crds(join(project, 'config', 'crd', 'bases'));
    const theirs = crds(join(goDir, 'out'));
    const equal = [...theirs].filter(([file, text]) => ours.get(file) === text).length;
    // The same API with CEL rules on every kind: what checking the rules costs.
    writeApi(project, goDir, true);
    const withCel = time('opgen generate crd (CEL rules)', process.execPath, [opgenBin, 'generate', 'crd'], project);
    const celRulesWritten = readdirSync(join(project, 'config', 'crd', 'bases')).filter((f) => readFileSync(join(project, 'config', 'crd', 'bases', f), 'utf8').includes('x-kubernetes-validations')).length;

    const ms = (x: number) => `${x.toFixed(0).padStart(6)} ms`;
    const line = (label: string, t: Timing) =>
      console.log(
        `${label.padEnd(28)} wall median ${ms(median(t.wall))} (min ${ms(Math.min(...t.wall))}, max ${ms(Math.max(...t.wall))})` +
          (t.cpu.length ? `   CPU median ${ms(median(t.cpu))}` : ''),
      );
    console.log(`bench:generate — ${kinds} kinds × ${fieldCount} fields, median of ${runs} runs after one warm-up`);
    line('opgen generate crd', opgen);
    line('controller-gen crd', cg);
    line('tsc --noEmit (same files)', tsc);
    line('opgen generate crd --watch', watch);
    console.log(`${''.padEnd(28)} (one field of one kind changed: write → CRD written, 100 ms debounce included; the watcher's own figure, median ${ms(median(watch.reported))})`);
    line('opgen generate crd, CEL rules', withCel);
    if (check) line('opgen generate --check', check);
    else console.log(`${'opgen generate --check'.padEnd(28)} FAILED: ${checkFailure}`);
    const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
    const ratios = (a: Timing, b: Timing) => `wall ${ratio(a.wall, b.wall)}${a.cpu.length && b.cpu.length ? `, CPU ${ratio(a.cpu, b.cpu)}` : ''}`;
    console.log(`opgen / tsc            = ${ratios(opgen, tsc)}   (target ≤ 1 on wall time: ${median(opgen.wall) <= median(tsc.wall) ? 'met' : 'NOT met'})`);
    console.log(`opgen / controller-gen = ${ratios(opgen, cg)}   (target < 1 on wall time: ${median(opgen.wall) < median(cg.wall) ? 'met' : 'NOT met'})`);
    console.log(`watch / full generate crd = ${ratios(watch, opgen)}   (target ≤ 0.25 on wall time: ${median(watch.wall) <= 0.25 * median(opgen.wall) ? 'met' : 'NOT met'}; SIGINT exit code ${watch.exitCode})`);
    console.log(`with CEL / without        = ${ratios(withCel, opgen)}   (target ≤ 1.2 on wall time: ${median(withCel.wall) <= 1.2 * median(opgen.wall) ? 'met' : 'NOT met'}; ${celRulesWritten} CRDs carry rules)`);
    if (check) console.log(`--check on an unchanged project: ${median(check.wall).toFixed(0)} ms wall (target well under 1000 ms: ${median(check.wall) < 1000 ? 'met' : 'NOT met'})`);
    const load = loadavg()[0]!;
    if (load > availableParallelism()) console.log(`note: load average ${load.toFixed(1)} on ${availableParallelism()} cores while timing; wall times are inflated, compare CPU times`);
    console.log(`CRDs: opgen ${ours.size}, controller-gen ${theirs.size}, equal once parsed ${equal}`);
    if (checkFailure || watch.exitCode !== 0) process.exitCode = 1;
  } finally {
    if (values.keep) process.stderr.write(`bench:generate: kept ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
