// The AGENTS.md `opgen init` writes (kubebuilder v4.11+ scaffolds one for coding assistants): every command it
// names must exist, as an npm script of the generated package.json or as an opgen command with those flags.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, groups } from '../../cli/command-table.js';
import { opgenOk } from '../../testdata/cli.js';
import { tempDir } from '../../testdata/files.js';

let dir: string;
let cleanup: () => void;
let agents: string;
let scripts: Record<string, string>;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('opgen-agents-', 'agents-operator'));
  await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
  agents = readFileSync(join(dir, 'AGENTS.md'), 'utf8');
  scripts = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
});
afterAll(() => cleanup());

/** Every `npm …` and `(npx) opgen …` in backquotes. */
const named = (tool: 'npm' | 'opgen'): string[] =>
  [...agents.matchAll(tool === 'npm' ? /`(npm [^`]+)`/g : /`(?:npx )?(opgen [^`]+)`/g)].map((m) => m[1]!);

/** npm's own commands, and the lifecycle scripts it runs without `run`. */
const NPM_BUILTINS = ['npm install'];

describe('AGENTS.md', () => {
  it('is written by opgen init, naming the project', () => {
    expect(agents).toContain('# AGENTS.md');
    expect(agents).toContain('agents-operator');
  });

  it('names only npm scripts that package.json defines', () => {
    const npm = named('npm');
    expect(npm.length).toBeGreaterThan(8);
    const missing = npm.filter((c) => {
      if (NPM_BUILTINS.includes(c)) return false;
      const script = /^npm (?:run )?([\w:-]+)$/.exec(c)?.[1];
      return script === undefined || scripts[script] === undefined;
    });
    expect(missing).toEqual([]);
  });

  it('names only opgen commands that exist, with flags they take', () => {
    const opgen = named('opgen');
    expect(opgen.length).toBeGreaterThan(6);
    const wrong = opgen.flatMap((c) => {
      const words = c.split(/\s+/).slice(1);
      const path = words.filter((w) => !w.startsWith('-') && !w.startsWith('<'));
      // `opgen --help`, and a group of commands (`opgen create`) named as such.
      if (path.length === 0) return words.every((w) => w === '--help') ? [] : [`${c}: not a command`];
      if (groups[path.join(' ')] !== undefined && words.length === path.length) return [];
      const spec = commands.find((s) => s.path.join(' ') === path.join(' '));
      if (!spec) return [`${c}: no command opgen ${path.join(' ')}`];
      const flags = new Set((spec.options ?? []).map((o) => o.flags.split(/[\s,]/)[0]));
      return words.filter((w) => w.startsWith('--') && !flags.has(w)).map((w) => `${c}: opgen ${path.join(' ')} has no ${w}`);
    });
    expect(wrong).toEqual([]);
  });

  it('says what npm run manifests runs, as package.json does', () => {
    expect(agents).toContain('`npm run manifests` (runs `opgen generate`)');
    expect(scripts.manifests).toBe('opgen generate');
    expect(agents).toContain('`npm start`');
    expect(scripts.prestart).toBe('npm run manifests && npm run build');
  });
});
