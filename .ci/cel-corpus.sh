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

reuse_complete_or_lock cel-corpus "$OUT" "download the modules holding the CRDs"

echo "cel-corpus: downloading ${#MODULES[@]} Go modules for their CRDs (first run only)" >&2
tmp="$(mktemp -d "$TOOLS_CACHE/.cel-corpus-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
for entry in "${MODULES[@]}"; do
  read -r module folders <<<"$entry"
  dir="$(go_module_dir cel-corpus "$module")"
  name="$(basename "${module%@*}")"
  for folder in $folders; do
    for f in "$dir/$folder"/*.yaml; do
      case "$(basename "$f")" in kustomization.yaml|kustomizeconfig.yaml) continue ;; esac
      cp "$f" "$tmp/$name--$(basename "$f")"
    done
  done
done
chmod 644 "$tmp"/*.yaml
chmod 755 "$tmp"
publish_complete "$tmp" "$OUT"
