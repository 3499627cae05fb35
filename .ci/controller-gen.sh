#!/usr/bin/env bash
# Installs controller-gen (sigs.k8s.io/controller-tools) from the Go module proxy into a cache folder
# keyed by version, outside the repository, and prints the binary's path. A warm cache prints at once.
# The parity suite and bench/generate compare opgen's output with this binary's.
set -euo pipefail

VERSION="${OPGEN_CONTROLLER_GEN_VERSION:-v0.23.0}"
CACHE_ROOT="${OPGEN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/tools}"
OUT="$CACHE_ROOT/controller-gen-$VERSION"
BIN="$OUT/controller-gen"

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

command -v go >/dev/null 2>&1 || { echo "controller-gen: go is not installed; it is needed to build controller-gen" >&2; exit 1; }
echo "controller-gen: installing sigs.k8s.io/controller-tools/cmd/controller-gen@$VERSION (first run only)" >&2
mkdir -p "$OUT"
# GOBIN into a temporary folder first, so an interrupted build never leaves a half-written binary behind.
tmp="$(mktemp -d "$OUT/.install-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$tmp" go install -trimpath "sigs.k8s.io/controller-tools/cmd/controller-gen@$VERSION" >&2
mv "$tmp/controller-gen" "$BIN"
echo "$BIN"
