#!/usr/bin/env bash
# Fetches the CRDs of three public APIs (Gateway API's experimental channel, cluster-api, cert-manager)
# from their Go modules on the module proxy into a cache folder keyed by their versions, outside the
# repository, and prints the folder. src/cel/corpus.test.ts sends each to a real kube-apiserver and to
# opgen's CEL checker: their x-kubernetes-validations rules are the corpus the two must agree on. A warm
# cache prints at once; concurrent callers wait on a lock.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# <module@version> <folders of CRD YAML in it>
MODULES=(
  "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental"
  "sigs.k8s.io/cluster-api@v1.14.2 core/config/crd/bases bootstrap/kubeadm/config/crd/bases controlplane/kubeadm/config/crd/bases"
  "github.com/cert-manager/cert-manager@v1.21.2 deploy/crds"
)
KEY="$(printf '%s\n' "${MODULES[@]}" | sha1sum | cut -c1-12)"
OUT="$TOOLS_CACHE/cel-corpus-$KEY"

complete() { [ -f "$OUT/.complete" ]; }
if complete; then echo "$OUT"; exit 0; fi

need_go cel-corpus "download the modules holding the CRDs"
wait_for_lock "$OUT" cel-corpus
if complete; then echo "$OUT"; exit 0; fi

echo "cel-corpus: downloading ${#MODULES[@]} Go modules for their CRDs (first run only)" >&2
tmp="$(mktemp -d "$TOOLS_CACHE/.cel-corpus-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
for entry in "${MODULES[@]}"; do
  read -r module folders <<<"$entry"
  # `go mod download` needs no go.mod; -json prints the extracted module's folder.
  dir="$(GOFLAGS=-mod=mod go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -n "$dir" ] || { echo "cel-corpus: go mod download printed no folder for $module" >&2; exit 1; }
  name="$(basename "${module%@*}")"
  for folder in $folders; do
    for f in "$dir/$folder"/*.yaml; do
      case "$(basename "$f")" in kustomization.yaml|kustomizeconfig.yaml) continue ;; esac
      cp "$f" "$tmp/$name--$(basename "$f")"
    done
  done
done
chmod 644 "$tmp"/*.yaml
touch "$tmp/.complete"
rm -rf "$OUT"
chmod 755 "$tmp"
mv "$tmp" "$OUT"
trap - EXIT
echo "$OUT"
