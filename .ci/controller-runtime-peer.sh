#!/usr/bin/env bash
# Builds crpeer (test/metrics/crpeer: a controller-runtime v0.24.1 manager with a controller, leader
# election and webhooks, serving /metrics) from the Go module proxy into a cache folder keyed by its
# source, outside the repository, and prints the binary's path. The metrics comparison test scrapes it
# beside @opgen/runtime's manager. A warm cache prints at once.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

SRC_HASH="$(cat test/metrics/crpeer/main.go test/metrics/crpeer/go.mod test/metrics/crpeer/go.sum | sha1sum | cut -c1-12)"
OUT="$TOOLS_CACHE/crpeer-$SRC_HASH"
BIN="$OUT/crpeer"

reuse_or_lock crpeer "$OUT" "$BIN"
go_build_local crpeer test/metrics/crpeer "$BIN" "a controller-runtime v0.24.1 manager to compare /metrics with"
echo "$BIN"
