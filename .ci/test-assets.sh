#!/usr/bin/env bash
# Builds kube-apiserver and etcd (and kubectl when the machine has none) from the Go module proxy
# into a cache folder keyed by version, then prints that folder: use it as KUBEBUILDER_ASSETS.
# A warm cache prints at once; `--cached` only prints it (exit 1 when not built yet, building nothing). Nothing built here belongs in the repository.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

K8S_VERSION="${OPGEN_K8S_VERSION:-1.36.3}"
ETCD_VERSION="${OPGEN_ETCD_VERSION:-3.6.16}"
CACHE_ROOT="${OPGEN_ASSETS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/envtest}"
OUT="$CACHE_ROOT/k8s-$K8S_VERSION-etcd-$ETCD_VERSION"

log() { echo "test-assets: $*" >&2; }

# go build -v names each package as it compiles it: counted against `go list -deps`, that is a progress
# line every 10 % for builds that otherwise print nothing for minutes. Other output (errors) passes through.
build_with_progress() { # <label> <output> <package> [ldflags]
  local label="$1" out="$2" pkg="$3" ldf="${4:-}" total
  total="$(go list -deps "$pkg" | wc -l)"
  go build -v -trimpath -ldflags "$ldf" -o "$out" "$pkg" 2>&1 | awk -v total="$total" -v label="$label" '
    /^[A-Za-z0-9._~+-]+(\/[A-Za-z0-9._~+-]+)*$/ {
      n++; pct = int(n * 100 / total)
      if (pct >= due) { printf "test-assets: %s: %d of %d packages (%d%%)\n", label, n, total, pct > "/dev/stderr"; due = pct - pct % 10 + 10 }
      next
    }
    { print > "/dev/stderr" }'
}

want_kubectl=0
# OPGEN_BUILD_KUBECTL=1 builds it even when one is on PATH (to test this path).
{ command -v kubectl >/dev/null 2>&1 && [ "${OPGEN_BUILD_KUBECTL:-0}" != 1 ]; } || want_kubectl=1

have_all() {
  [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ] || return 1
  [ "$want_kubectl" = 0 ] || [ -x "$OUT/kubectl" ]
}
if have_all; then echo "$OUT"; exit 0; fi
[ "${1:-}" != --cached ] || exit 1 # --cached: only print a folder already built (npm run example asks first)

# One build at a time: a second caller (another vitest run, CI) waits for the first, then reuses it.
wait_for_lock "$OUT" test-assets
if have_all; then echo "$OUT"; exit 0; fi

need_go test-assets "build kube-apiserver and etcd"
export CGO_ENABLED=0 GOFLAGS=-mod=mod
work="$(mktemp -d "${TMPDIR:-/tmp}/opgen-assets-XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT"
start=$(date +%s)

# etcd: its module's own replace directives block `go install`, so build it as a dependency of a tiny main.
if [ ! -x "$OUT/etcd" ]; then
  log "building etcd v$ETCD_VERSION (first run only)"
  mkdir -p "$work/etcd"
  cat >"$work/etcd/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  (cd "$work/etcd" && go mod init local/etcd >/dev/null 2>&1 \
    && go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" >&2 \
    && go mod tidy >&2 \
    && build_with_progress "compiling etcd v$ETCD_VERSION" "$OUT/etcd.tmp" .)
  mv "$OUT/etcd.tmp" "$OUT/etcd"
fi

# kube-apiserver (and kubectl): k8s.io/kubernetes requires its staging modules at v0.0.0, so pin each
# staging module to the matching v0.<minor>.<patch> with replace directives read from its own go.mod.
if [ ! -x "$OUT/kube-apiserver" ] || { [ "$want_kubectl" = 1 ] && [ ! -x "$OUT/kubectl" ]; }; then
  log "building kube-apiserver v$K8S_VERSION (first run only; about 8 min on 2 cores with empty Go caches)"
  mkdir -p "$work/kas"
  cd "$work/kas"
  k8s_module local/kas
  echo 'package main' >tools.go
  printf '\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n)\n' >>tools.go
  go mod tidy >&2 || true
  go get "k8s.io/kubernetes/cmd/kube-apiserver@v$K8S_VERSION" >&2
  ldf="$(k8s_ldflags)"
  if [ ! -x "$OUT/kube-apiserver" ]; then
    build_with_progress "compiling kube-apiserver v$K8S_VERSION" "$OUT/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver "$ldf"
    mv "$OUT/kube-apiserver.tmp" "$OUT/kube-apiserver"
  fi
  if [ "$want_kubectl" = 1 ] && [ ! -x "$OUT/kubectl" ]; then
    log "no kubectl on PATH: building kubectl v$K8S_VERSION"
    go get "k8s.io/kubernetes/cmd/kubectl@v$K8S_VERSION" >&2
    build_with_progress "compiling kubectl v$K8S_VERSION" "$OUT/kubectl.tmp" k8s.io/kubernetes/cmd/kubectl "$ldf"
    mv "$OUT/kubectl.tmp" "$OUT/kubectl"
  fi
fi
secs=$(( $(date +%s) - start ))
# bench/envtest reads this to report the cold build time.
echo "$secs" >"$OUT/build-seconds"
log "built in ${secs}s into $OUT"
echo "$OUT"
