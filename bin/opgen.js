#!/usr/bin/env node
// The opgen executable: a shim over the compiled CLI, which loads each command's code only when it runs.
import module from 'node:module';

module.enableCompileCache?.();
// `opgen markers | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
const { run } = await import('../dist/cli/main.js');
process.exitCode = await run(process.argv.slice(2));
