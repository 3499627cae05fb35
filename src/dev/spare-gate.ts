// Loaded by `opgen dev` with `node --import` ahead of the next restart: Node starts and loads
// @opgen/runtime (OPGEN_DEV_PRELOAD, the project's copy) while the current operator still runs, then
// waits for one line on stdin. Only then does Node run dist/main.js, so the operator runs the code
// transpiled after the edit. A closed stdin (dev is gone) ends the spare.
const preload = process.env.OPGEN_DEV_PRELOAD;
delete process.env.OPGEN_DEV_PRELOAD;
if (preload) await import(preload);
await new Promise<void>((resolve) => {
  process.stdin.once('data', () => {
    process.stdin.destroy();
    resolve();
  });
  process.stdin.once('end', () => process.exit(0));
});
export {};
