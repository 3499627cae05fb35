#!/usr/bin/env bash
# Builds a real Prometheus server (github.com/prometheus/prometheus/cmd/prometheus, the release the
# promcheck libraries pin) from the Go module proxy into a cache folder outside the repository, and prints
# the binary's path. test/grafana/prometheus.test.ts and bench/dashboard (the images in docs/) scrape a
# running operator with it and ask its HTTP API (/api/v1/query_range) the Grafana dashboards' queries. A
# warm cache prints at once. .ci/run calls it: the build needs 193 s of CPU (811 s of wall time on the 2-core
# machine at load average 25, a few minutes on a quiet one), once per cache.
#
# Two build tags keep it to what is used here: without `builtinassets` the web UI's files are not embedded
# (the UI page answers 500, the API is whole), and `remove_all_sd` leaves only the file and HTTP service
# discovery (static_configs are always there), dropping the cloud and Kubernetes SDKs from the build.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

MODULE_VERSION=v0.316.0 # Prometheus 3.16.0 (the module's VERSION file); the v0 tag Go modules see
RELEASE=3.16.0
OUT="$TOOLS_CACHE/prometheus-$MODULE_VERSION"
BIN="$OUT/prometheus"

reuse_or_lock prometheus "$OUT" "$BIN"
need_go prometheus "build github.com/prometheus/prometheus/cmd/prometheus"
echo "prometheus: installing github.com/prometheus/prometheus/cmd/prometheus@$MODULE_VERSION (first run only)" >&2
mkdir -p "$OUT"
tmp="$(mktemp -d "$OUT/.install-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$tmp" go install -trimpath -tags remove_all_sd \
  -ldflags "-X github.com/prometheus/common/version.Version=$RELEASE -X github.com/prometheus/common/version.Branch=$MODULE_VERSION" \
  "github.com/prometheus/prometheus/cmd/prometheus@$MODULE_VERSION" >&2
mv "$tmp/prometheus" "$BIN"
echo "$BIN"
