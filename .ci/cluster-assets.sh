#!/usr/bin/env bash
# Builds the rest of a simulated cluster — kube-controller-manager and kube-scheduler (the same
# k8s.io/kubernetes release as .ci/test-assets.sh's kube-apiserver) and kwok (sigs.k8s.io/kwok, which
# plays the kubelets) — from the Go module proxy into a cache folder keyed by version, then prints that
# folder. startTestEnv({ simulatedCluster: true }) looks there (or in $OPGEN_CLUSTER_ASSETS).
# A warm cache prints at once; `--cached` only prints it (exit 1 when not built yet, building nothing).
# Nothing built here belongs in the repository.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

K8S_VERSION="${OPGEN_K8S_VERSION:-1.36.3}"
ETCD_VERSION="${OPGEN_ETCD_VERSION:-3.6.16}"
KWOK_VERSION="${OPGEN_KWOK_VERSION:-0.8.0}"
CACHE_ROOT="${OPGEN_ASSETS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/envtest}"
OUT="$CACHE_ROOT/cluster-k8s-$K8S_VERSION-kwok-$KWOK_VERSION"
here="$(cd "$(dirname "$0")" && pwd)"

log() { echo "cluster-assets: $*" >&2; }

have_all() {
  [ -x "$OUT/kube-controller-manager" ] && [ -x "$OUT/kube-scheduler" ] && [ -x "$OUT/kwok" ] && [ -f "$OUT/kwok-stages.yaml" ]
}
if have_all; then echo "$OUT"; exit 0; fi
[ "${1:-}" != --cached ] || exit 1

# kube-apiserver first: it shares almost every package with these two, so building after it reuses the
# Go build cache; and test-assets.sh waits on its own lock when another build of it is running, so the
# two shared cores never run two cold Kubernetes builds at once.
log "waiting for kube-apiserver and etcd (.ci/test-assets.sh)"
bash "$here/test-assets.sh" >/dev/null

wait_for_lock "$OUT" cluster-assets
if have_all; then echo "$OUT"; exit 0; fi

need_go cluster-assets "build kube-controller-manager, kube-scheduler and kwok"
export CGO_ENABLED=0 GOFLAGS=-mod=mod
work="$(mktemp -d "${TMPDIR:-/tmp}/opgen-cluster-assets-XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT"
start=$(date +%s)

# One throw-away module for all three, shaped like test-assets.sh's kube-apiserver module (k8s.io/kubernetes
# requires its staging modules at v0.0.0; pin each to v0.<minor>.<patch>), so the three share the packages
# kube-apiserver already compiled.
if [ ! -x "$OUT/kube-controller-manager" ] || [ ! -x "$OUT/kube-scheduler" ] || [ ! -x "$OUT/kwok" ]; then
  mkdir -p "$work/k8s"
  cd "$work/k8s"
  k8s_module local/k8s
  printf 'package main\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"\n\t_ "k8s.io/kubernetes/cmd/kube-scheduler/app"\n)\n' >tools.go
  go mod tidy >&2 || true
  go get "k8s.io/kubernetes/cmd/kube-scheduler@v$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-controller-manager@v$K8S_VERSION" >&2

  # kwok joins the same module, compiled against the Kubernetes release it simulates nodes for. Built on
  # its own (`go install sigs.k8s.io/kwok/cmd/kwok@v…`) its go.mod raises golang.org/x, grpc and otel a few
  # patch levels, and Go's build cache keys every package by its module's required version, so a cold
  # build compiled a second Kubernetes client stack (41 of ~100 minutes on a loaded 2-core machine).
  # A replace directive is not enough (the cache key keeps the raised version), so kwok's source is
  # copied from the module cache and its go.mod given Kubernetes' versions of every module they share.
  go list -m -f '{{if not .Replace}}{{.Path}} {{.Version}}{{end}}' all | sort >"$work/k8s-modules.txt"
  kwokdir="$(go mod download -json "sigs.k8s.io/kwok@v$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -n "$kwokdir" ] || { log "could not download sigs.k8s.io/kwok@v$KWOK_VERSION"; exit 1; }
  cp -R "$kwokdir" "$work/kwok" && chmod -R u+w "$work/kwok" && rm -f "$work/kwok/go.sum"
  same=""
  while read -r mod ver; do
    if grep -q "^[[:space:]]*$mod v" "$work/kwok/go.mod"; then same="$same -require=$mod@$ver"; fi
  done <"$work/k8s-modules.txt"
  # shellcheck disable=SC2086 # one -require flag per shared module
  [ -z "$same" ] || (cd "$work/kwok" && go mod edit $same)
  go mod edit -require="sigs.k8s.io/kwok@v$KWOK_VERSION" -replace="sigs.k8s.io/kwok=$work/kwok"
  printf 'package main\n\nimport _ "sigs.k8s.io/kwok/pkg/kwok/cmd"\n' >kwok.go
  go mod tidy >&2
  go list -m -f '{{if not .Replace}}{{.Path}} {{.Version}}{{end}}' all | sort >"$work/with-kwok.txt"
  raised="$(join "$work/k8s-modules.txt" "$work/with-kwok.txt" | awk '$2 != $3 { print $1 }' | tr '\n' ' ')"
  [ -z "$raised" ] || log "kwok still raises $raised; those packages compile twice"

  ldf="$(k8s_ldflags)"
  for cmd in kube-scheduler kube-controller-manager; do
    if [ ! -x "$OUT/$cmd" ]; then
      log "building $cmd v$K8S_VERSION (first run only)"
      go build -trimpath -ldflags "$ldf" -o "$OUT/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd" >&2
      mv "$OUT/$cmd.tmp" "$OUT/$cmd"
    fi
  done
  if [ ! -x "$OUT/kwok" ]; then
    log "building kwok v$KWOK_VERSION (first run only)"
    go build -trimpath -o "$OUT/kwok.tmp" sigs.k8s.io/kwok/cmd/kwok >&2
    mv "$OUT/kwok.tmp" "$OUT/kwok"
  fi
fi

# kwok's stages (what a simulated kubelet does to nodes and pods) are data in its module; take the ones
# kwokctl uses by default — nodes Ready with a lease heartbeat, pods Running and Ready, completed, deleted —
# from the same version rather than copying them into this repository.
if [ ! -f "$OUT/kwok-stages.yaml" ]; then
  dir="$(go mod download -json "sigs.k8s.io/kwok@v$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -n "$dir" ] || { log "could not download sigs.k8s.io/kwok@v$KWOK_VERSION"; exit 1; }
  for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
    pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "---"
    cat "$dir/kustomize/stage/$f"
  done >"$OUT/kwok-stages.yaml.tmp"
  mv "$OUT/kwok-stages.yaml.tmp" "$OUT/kwok-stages.yaml"
fi

secs=$(( $(date +%s) - start ))
[ "$secs" -lt 5 ] || echo "$secs" >"$OUT/build-seconds" # bench/envtest reports it; a stages-only rerun is not a build
log "built in ${secs}s into $OUT"
echo "$OUT"
