#!/usr/bin/env bash
# Builds otelcol (test/otelcol: the OpenTelemetry Collector's OTLP receiver and file exporter, from
# go.opentelemetry.io/collector and the contrib fileexporter) from the Go module proxy into a cache
# folder keyed by its source, outside the repository, and prints the binary's path. The tracing test
# sends the runtime's spans to it and reads back what it received. A warm cache prints at once.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

SRC_HASH="$(cat test/otelcol/main.go test/otelcol/go.mod test/otelcol/go.sum | sha1sum | cut -c1-12)"
OUT="$TOOLS_CACHE/otelcol-$SRC_HASH"
BIN="$OUT/otelcol"

reuse_or_lock otelcol "$OUT" "$BIN"
go_build_local otelcol test/otelcol "$BIN" "an OpenTelemetry Collector (OTLP receiver, file exporter)"
echo "$BIN"
