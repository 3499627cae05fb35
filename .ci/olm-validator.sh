#!/usr/bin/env bash
# Builds the OLM bundle checker (test/olm/checker: our own small main on github.com/operator-framework/api's
# bundle loader and validators, the library behind `operator-sdk bundle validate`) from the Go module
# proxy into a cache folder keyed by the library version and the checker's source, outside the
# repository, and prints the binary's path. A warm cache prints at once; concurrent callers wait (flock).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

VERSION="$(sed -n 's#^[[:space:]]*\(require \)\{0,1\}github.com/operator-framework/api \(v[^ ]*\).*#\2#p' test/olm/checker/go.mod | head -1)"
SRC_HASH="$(cat test/olm/checker/main.go test/olm/checker/go.mod | sha1sum | cut -c1-12)"
OUT="$TOOLS_CACHE/olm-checker-$VERSION-$SRC_HASH"
BIN="$OUT/olm-checker"

reuse_or_lock olm-validator "$OUT" "$BIN"

go_build_local olm-validator test/olm/checker "$BIN" "the checker on github.com/operator-framework/api@$VERSION"
echo "$BIN"
