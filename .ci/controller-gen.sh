#!/usr/bin/env bash
# Installs controller-gen (sigs.k8s.io/controller-tools) from the Go module proxy into a cache folder
# keyed by version, outside the repository, and prints the binary's path. A warm cache prints at once.
# The parity suite and bench/generate compare opgen's output with this binary's.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

VERSION="${OPGEN_CONTROLLER_GEN_VERSION:-v0.23.0}"
CACHE_ROOT="${OPGEN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/tools}"
OUT="$CACHE_ROOT/controller-gen-$VERSION"
BIN="$OUT/controller-gen"

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

wait_for_lock "$OUT" controller-gen
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
go_install controller-gen "sigs.k8s.io/controller-tools/cmd/controller-gen@$VERSION" "$BIN"
echo "$BIN"
