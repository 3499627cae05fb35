// The shape every writing command shares: stage changes in a Tree, then commit them (or only print them
// in a dry run). Anything thrown while staging leaves the directory untouched.
import type { CommandContext } from '../../common/command-context.js';
import { commitTree, Tree, type FileChange } from '../../scaffold/index.js';

export function stageAndCommit(ctx: CommandContext, dryRun: boolean, stage: (tree: Tree) => void): FileChange[] {
  const tree = new Tree(ctx.cwd);
  stage(tree);
  const changes = commitTree(tree, { dryRun, out: ctx.out });
  if (dryRun) ctx.out(changes.length === 0 ? 'dry run: nothing would change' : 'dry run: nothing was written');
  return changes;
}

/** The license header for new TypeScript files: hack/boilerplate.ts.txt, followed by a blank line. */
export function sourceHeader(boilerplate: string | undefined): string {
  const text = (boilerplate ?? '').trim();
  return text === '' ? '' : `${text}\n\n`;
}
