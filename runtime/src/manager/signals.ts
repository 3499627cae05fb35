// SIGTERM (kubelet stopping the pod) or SIGINT (Ctrl-C) starts a graceful shutdown; a second signal
// means the user is done waiting.
let installed: AbortSignal | undefined;

export function setupSignalHandler(): AbortSignal {
  if (installed) return installed;
  const controller = new AbortController();
  let count = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    count++;
    if (count === 1) {
      controller.abort(new Error(`received ${sig}`));
      return;
    }
    process.exit(1);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  installed = controller.signal;
  return installed;
}
