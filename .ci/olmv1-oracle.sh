#!/usr/bin/env bash
# Builds the OLM v1 oracle: our small main (test/olm-v1/oracle/main.go) compiled inside a temporary copy of
# github.com/operator-framework/operator-controller from the Go module proxy, because the code it runs
# (the registry+v1 bundle converter and validators, the CRD upgrade-safety preflight) is under internal/,
# which Go lets no other module import. It also runs operator-registry's semver template and declcfg
# validation, which operator-controller depends on. Nothing of theirs is kept: the copy is deleted after the
# build. Prints the binary's path; a warm cache prints at once; concurrent callers wait (flock).
# Cost from empty Go caches: 4.1 min of CPU, 682 MB of modules, 749 MB of build cache (17.4 min of wall
# time on 2 cores at load average ~20); a rebuild after main.go changes takes ~30 s.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

# The newest version the module proxy serves here (its version list is refused; v1.5.1 is what it hands out).
MODULE=github.com/operator-framework/operator-controller
VERSION=v1.5.1
SRC_HASH="$(cat test/olm-v1/oracle/main.go | sha1sum | cut -c1-12)"
OUT="$TOOLS_CACHE/olmv1-oracle-$VERSION-$SRC_HASH"
BIN="$OUT/olmv1-oracle"

reuse_or_lock olmv1-oracle "$OUT" "$BIN"
need_go olmv1-oracle "build the OLM v1 oracle on $MODULE@$VERSION"
echo "olmv1-oracle: building our main inside $MODULE@$VERSION (first run only)" >&2

# The checksum database has no entry for this module version; its go.sum still pins every dependency.
DIR="$(GONOSUMDB="$MODULE" GOFLAGS=-mod=mod go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -n "$DIR" ] || { echo "olmv1-oracle: could not download $MODULE@$VERSION" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cp -r "$DIR/." "$TMP/src"
chmod -R u+w "$TMP/src"
mkdir -p "$TMP/src/cmd/opgen-olmv1-oracle" "$OUT"
cp test/olm-v1/oracle/main.go "$TMP/src/cmd/opgen-olmv1-oracle/main.go"
(cd "$TMP/src" && GONOSUMDB="$MODULE" CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$BIN.tmp" ./cmd/opgen-olmv1-oracle >&2)
mv "$BIN.tmp" "$BIN"
echo "$BIN"
