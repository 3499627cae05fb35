#!/usr/bin/env bash
# The built-in example: what `npm run example` does. Scaffolds a Memcached operator with opgen, gives
# its Spec a few kubebuilder-marked fields, and generates the CRD, RBAC and kustomize manifests.
# Usage: e2e/example.sh [target-dir]   (default: a new temp folder; an existing folder is refused)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:-$(mktemp -d "${TMPDIR:-/tmp}/opgen-example-XXXXXX")/memcached-operator}"
if [ -e "$target" ] && [ -n "$(ls -A "$target" 2>/dev/null)" ]; then
  echo "example: $target is not empty; pass another folder" >&2
  exit 1
fi
opgen() { echo "\$ opgen $*"; node "$repo/bin/opgen.js" "$@"; }

(cd "$repo" && npm run --silent build)
mkdir -p "$target" && cd "$target"
opgen init --domain example.com --repo github.com/example/memcached-operator --skip-install
opgen create api --group cache --version v1alpha1 --kind Memcached
# The user's part: fields with markers, as in kubebuilder's tutorial.
cp "$repo/e2e/example/memcached-types.ts" src/api/v1alpha1/memcached-types.ts
opgen generate
echo
echo "Generated in $target:"
find . -path ./node_modules -prune -o -type f -print | sort
echo
echo "--- config/crd/bases/cache.example.com_memcacheds.yaml"
cat config/crd/bases/cache.example.com_memcacheds.yaml
