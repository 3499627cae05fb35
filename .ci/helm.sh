#!/usr/bin/env bash
# Installs helm (helm.sh/helm/v3) from the Go module proxy into a cache folder keyed by version, outside
# the repository, and prints the binary's path. A warm cache prints at once; concurrent callers wait on a
# lock instead of building twice. The chart tests run `helm lint` and `helm template` with this binary.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

VERSION="${OPGEN_HELM_VERSION:-v3.22.0}"
CACHE_ROOT="${OPGEN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/tools}"
OUT="$CACHE_ROOT/helm-$VERSION"
BIN="$OUT/helm"

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

wait_for_lock "$OUT" helm
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
go_install helm "helm.sh/helm/v3/cmd/helm@$VERSION" "$BIN"
echo "$BIN"
