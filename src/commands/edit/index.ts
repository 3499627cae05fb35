// `opgen edit`: change project-wide settings recorded in PROJECT.
import type { CommandContext } from '../../common/command-context.js';
import { OpgenError } from '../../diag/diagnostic.js';
import { loadProject, saveProject } from '../../project/index.js';
import { stageAndCommit } from '../shared/run-in-tree.js';

export interface EditOptions {
  /** undefined = leave as it is. */
  multigroup?: boolean;
  dryRun: boolean;
}

export async function editCommand(ctx: CommandContext, o: EditOptions): Promise<number> {
  if (o.multigroup === undefined) {
    throw new OpgenError('nothing to change', { flag: '--multigroup' }, 'pass --multigroup or --multigroup=false');
  }
  const multigroup = o.multigroup;
  let note: string | undefined;
  stageAndCommit(ctx, o.dryRun, (tree) => {
    const project = loadProject(tree);
    if (!multigroup) {
      const groups = [...new Set(project.resources.map((r) => r.group))];
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
  return 0;
}
