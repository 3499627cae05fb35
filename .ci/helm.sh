#!/usr/bin/env bash
# Installs helm (helm.sh/helm/v3) from the Go module proxy into a cache folder keyed by version, outside
# the repository, and prints the binary's path. A warm cache prints at once; concurrent callers wait on a
# lock instead of building twice. The chart tests run `helm lint` and `helm template` with this binary.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

VERSION="${OPGEN_HELM_VERSION:-v3.22.0}"
OUT="$TOOLS_CACHE/helm-$VERSION"
BIN="$OUT/helm"

reuse_or_lock helm "$OUT" "$BIN"
go_install helm "helm.sh/helm/v3/cmd/helm@$VERSION" "$BIN"
echo "$BIN"
