#!/usr/bin/env bash
# Builds promcheck (test/metrics/promcheck: our own small main on the Prometheus Go libraries' text
# parser and promlint, what a Prometheus scrape and `promtool check metrics` use) from the Go module
# proxy into a cache folder keyed by its source, outside the repository, and prints the binary's path.
# The metrics exposition test judges @opgen/runtime's /metrics text with it. A warm cache prints at once.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

SRC_HASH="$(cat test/metrics/promcheck/main.go test/metrics/promcheck/go.mod | sha1sum | cut -c1-12)"
OUT="$TOOLS_CACHE/promcheck-$SRC_HASH"
BIN="$OUT/promcheck"

reuse_or_lock promcheck "$OUT" "$BIN"
go_build_local promcheck test/metrics/promcheck "$BIN" "the Prometheus text checker on client_golang's promlint"
echo "$BIN"
