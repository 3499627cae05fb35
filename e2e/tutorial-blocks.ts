// The code blocks of docs/tutorial.md, which the tutorial e2e and the README demo run, so the document
// cannot drift from the code that is tested. A fence's info string says what a block is:
//   ```ts file=src/x.ts        the whole content of that file (written as is)
//   ```sh                      commands, run with bash -e in the tutorial's current folder
//   ```sh background           one command left running (the operator)
//   ```sh expect-failure       commands that must fail (e.g. a value the API server refuses)
//   ```sh manual="why"         not run by the tests; the reason says why (a container engine, ...)
//   ```text output             lines the previous block must print
// and `id=name` names a block, so a test can run up to it and check the cluster.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers.js';

export interface Block {
  lang: string;
  attrs: Record<string, string>;
  code: string;
  /** 1-based line of the opening fence, for messages. */
  line: number;
}

export const tutorialPath = join(repoRoot, 'docs/tutorial.md');

function parseInfo(info: string): { lang: string; attrs: Record<string, string> } {
  const [lang = '', ...rest] = info.match(/[^\s"=]+(?:=(?:"[^"]*"|\S+))?/g) ?? [];
  const attrs: Record<string, string> = {};
  for (const word of rest) {
    const eq = word.indexOf('=');
    if (eq < 0) attrs[word] = '';
    else attrs[word.slice(0, eq)] = word.slice(eq + 1).replace(/^"(.*)"$/, '$1');
  }
  return { lang, attrs };
}

export function readBlocks(markdown: string = readFileSync(tutorialPath, 'utf8')): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S.*)?$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`docs/tutorial.md:${start + 1}: code block is never closed`);
    blocks.push({ ...parseInfo(open[1] ?? ''), code: `${body.join('\n')}\n`, line: start + 1 });
  }
  return blocks;
}

/** Every block must be one the runners understand: a new kind of block fails the tests instead of being skipped. */
export function checkBlocks(blocks: Block[]): void {
  for (const b of blocks) {
    const where = `docs/tutorial.md:${b.line}`;
    const known = (b.lang === 'sh' && Object.keys(b.attrs).every((a) => ['background', 'expect-failure', 'manual', 'id'].includes(a))) ||
      (['ts', 'yaml'].includes(b.lang) && b.attrs.file !== undefined) ||
      (b.lang === 'text' && 'output' in b.attrs);
    if (!known) throw new Error(`${where}: a \`\`\`${b.lang} ${JSON.stringify(b.attrs)} block is neither a file (file=...), commands (sh), nor output; the tests would not run it`);
    if ('manual' in b.attrs && !b.attrs.manual) throw new Error(`${where}: say why a manual block is not run: manual="..."`);
    if ('background' in b.attrs && b.code.trim().includes('\n')) throw new Error(`${where}: a background block holds one command`);
  }
}
