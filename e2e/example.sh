#!/usr/bin/env bash
# `npm run example`: the Memcached operator of docs/tutorial.md at work on a local cluster — scaffolded,
# generated, run, given a sample, scaled, and cleaned up (see e2e/demo/main.ts).
# Usage: npm run example -- [folder] [--keep]
#   folder  where to create memcached-operator/ (kept afterwards); default: a temp folder, removed
#   --keep  leave the cluster running (until Ctrl+C) and print its kubeconfig, to follow the tutorial on it
set -euo pipefail
# --help before anything is built: the usage is the comment above.
for arg in "$@"; do
  if [ "$arg" = "--help" ] || [ "$arg" = "-h" ]; then
    sed -n '4,6s/^# \{0,1\}//p' "$0"
    exit 0
  fi
done
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
npm run --silent build
npx tsc -p e2e/demo/tsconfig.json
exec node e2e/demo/dist/demo/main.js "$@"
