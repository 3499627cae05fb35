#!/usr/bin/env bash
# Installs helm (helm.sh/helm/v3) from the Go module proxy into a cache folder keyed by version, outside
# the repository, and prints the binary's path. A warm cache prints at once; concurrent callers wait on a
# lock instead of building twice. The chart tests run `helm lint` and `helm template` with this binary.
set -euo pipefail

VERSION="${OPGEN_HELM_VERSION:-v3.22.0}"
CACHE_ROOT="${OPGEN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/tools}"
OUT="$CACHE_ROOT/helm-$VERSION"
BIN="$OUT/helm"

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

command -v go >/dev/null 2>&1 || { echo "helm: go is not installed; it is needed to build helm" >&2; exit 1; }
mkdir -p "$CACHE_ROOT"
if command -v flock >/dev/null 2>&1; then # util-linux; absent on macOS, where builds are not serialized
  exec 9>"$OUT.lock"
  if ! flock -n 9; then
    echo "helm: another build of $OUT is running; waiting for it" >&2
    flock 9
  fi
fi
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

echo "helm: installing helm.sh/helm/v3/cmd/helm@$VERSION (first run only)" >&2
mkdir -p "$OUT"
# GOBIN into a temporary folder first, so an interrupted build never leaves a half-written binary behind.
tmp="$(mktemp -d "$OUT/.install-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$tmp" go install -trimpath "helm.sh/helm/v3/cmd/helm@$VERSION" >&2
mv "$tmp/helm" "$BIN"
echo "$BIN"
