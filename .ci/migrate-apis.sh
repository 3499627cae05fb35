#!/usr/bin/env bash
# Fetches the public Go API modules the `opgen migrate` parity test migrates (test/parity/migrate.test.ts)
# from the Go module proxy, copies each into a cache folder keyed by the list below, outside the
# repository, downloads what their API packages import into the Go module cache (nothing else is
# fetched later: controller-gen and migrate then run offline), and prints the folder. A warm cache prints
# at once; concurrent callers wait on a lock.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# <folder> <module@version> <API packages, relative to the module>
APIS=(
  "prometheus-operator github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring@v0.93.0 ./v1 ./v1alpha1 ./v1beta1"
  "gateway-api sigs.k8s.io/gateway-api@v1.6.3 ./apis/v1 ./apis/v1beta1"
  "cert-manager github.com/cert-manager/cert-manager@v1.21.2 ./pkg/apis/certmanager/v1 ./pkg/apis/acme/v1"
)
KEY="$(printf '%s\n' "${APIS[@]}" | sha1sum | cut -c1-12)"
OUT="$TOOLS_CACHE/migrate-apis-$KEY"

reuse_complete_or_lock migrate-apis "$OUT" "download the Go API modules the migrate parity test reads"

echo "migrate-apis: downloading ${#APIS[@]} Go API modules and their imports (first run only)" >&2
tmp="$(mktemp -d "$TOOLS_CACHE/.migrate-apis-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
for api in "${APIS[@]}"; do
  read -r name module packages <<<"$api"
  dir="$(go_module_dir migrate-apis "$module")"
  cp -r "$dir" "$tmp/$name"
  chmod -R u+w "$tmp/$name"
  # A module zip leaves out nested modules, so a go.work naming them cannot load: the module stands alone.
  rm -f "$tmp/$name/go.work" "$tmp/$name/go.work.sum"
  # shellcheck disable=SC2086 # the package list is words
  (cd "$tmp/$name" && GOFLAGS= go list -deps $packages >/dev/null)
done
publish_complete "$tmp" "$OUT"
