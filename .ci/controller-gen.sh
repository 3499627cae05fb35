#!/usr/bin/env bash
# Installs controller-gen (sigs.k8s.io/controller-tools) from the Go module proxy into a cache folder
# keyed by version, outside the repository, and prints the binary's path. A warm cache prints at once.
# The parity suite and bench/generate compare opgen's output with this binary's.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

VERSION="${OPGEN_CONTROLLER_GEN_VERSION:-v0.23.0}"
OUT="$TOOLS_CACHE/controller-gen-$VERSION"
BIN="$OUT/controller-gen"

reuse_or_lock controller-gen "$OUT" "$BIN"
go_install controller-gen "sigs.k8s.io/controller-tools/cmd/controller-gen@$VERSION" "$BIN"
echo "$BIN"
