#!/usr/bin/env bash
# bench/dev-loop: opgen dev's edit -> reconciling again over several edits (each edit, then the median
# and the max). It runs the scenario of e2e/dev-loop.test.ts with OPGEN_DEV_LOOP_EDITS edits: the packed
# opgen and @opgen/runtime installed in a scaffolded project, `opgen dev` against envtest's
# kube-apiserver, one Memcached reconciled; each edit changes the reconciler's log message, and the time
# runs from writing the file to the new process's first log line with the new message. The next edit
# waits for the background type check of the last one, as a person would.
# Usage: bash bench/dev-loop/run.sh [edits]   (default 7; KUBEBUILDER_ASSETS must name envtest's binaries)
set -euo pipefail
cd "$(dirname "$0")/../.."
edits="${1:-7}"
if ! [[ "$edits" =~ ^[1-9][0-9]*$ ]]; then
  echo "bench/dev-loop: the number of edits must be a whole number of at least 1, got '$edits'" >&2
  exit 1
fi
if [[ -z "${KUBEBUILDER_ASSETS:-}" ]]; then
  echo "bench/dev-loop: KUBEBUILDER_ASSETS is not set (the folder with envtest's kube-apiserver and etcd)" >&2
  exit 1
fi
npm run build >/dev/null
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
echo "bench/dev-loop: $edits edits, $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
if ! OPGEN_DEV_LOOP_EDITS="$edits" npx vitest run e2e/dev-loop.test.ts -t 'applies the CRDs' >"$out" 2>&1; then
  tail -40 "$out" >&2
  echo "bench/dev-loop: the scenario failed (output above)" >&2
  exit 1
fi
grep -o 'dev-loop: .*' "$out"
echo "bench/dev-loop: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
