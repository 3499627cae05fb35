#!/usr/bin/env bash
# Renders docs/dashboard-*.svg (see run.ts): builds opgen, finds or builds kube-apiserver + etcd and
# Prometheus in the tools cache, compiles bench/dashboard and runs it. Flags after `--` go to run.ts.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "${1:-}" = "--" ] && shift
npm run build >/dev/null
KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(bash .ci/test-assets.sh)}"
OPGEN_PROMETHEUS="${OPGEN_PROMETHEUS:-$(bash .ci/prometheus.sh)}"
export KUBEBUILDER_ASSETS OPGEN_PROMETHEUS
npx tsc -p bench/dashboard/tsconfig.json
node bench/dashboard/dist/run.js "$@"
