#!/usr/bin/env node
// The opgen executable: a shim over the compiled CLI, which loads each command's code only when it runs.
import module from 'node:module';

module.enableCompileCache?.();
const { run } = await import('../dist/cli/main.js');
process.exitCode = await run(process.argv.slice(2));
