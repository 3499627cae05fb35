#!/usr/bin/env bash
# Fetches the CRDs of cert-manager (Certificate, Issuer) and prometheus-operator (ServiceMonitor, PrometheusRule) from
# their Go modules on the module proxy into a cache folder keyed by version, outside the repository, and
# prints the folder. The chart tests install them on the test API server so the server-side dry run checks
# the chart's Certificates, Issuer and ServiceMonitor against the real schemas. A warm cache prints at
# once; concurrent callers wait on a lock.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

CERT_MANAGER="${OPGEN_CERT_MANAGER_VERSION:-v1.21.2}"
PROMETHEUS_OPERATOR="${OPGEN_PROMETHEUS_OPERATOR_VERSION:-v0.85.0}"
OUT="$TOOLS_CACHE/third-party-crds-cert-manager-$CERT_MANAGER-prometheus-operator-$PROMETHEUS_OPERATOR"
FILES=(cert-manager.io_certificates.yaml cert-manager.io_issuers.yaml monitoring.coreos.com_servicemonitors.yaml monitoring.coreos.com_prometheusrules.yaml)

complete() { for f in "${FILES[@]}"; do [ -s "$OUT/$f" ] || return 1; done; }
if complete; then echo "$OUT"; exit 0; fi

need_go third-party-crds "download the modules holding the CRDs"
wait_for_lock "$OUT" third-party-crds
if complete; then echo "$OUT"; exit 0; fi

echo "third-party-crds: downloading cert-manager $CERT_MANAGER and prometheus-operator $PROMETHEUS_OPERATOR (first run only)" >&2
# `go mod download` needs no go.mod; -json prints the extracted module's folder.
dir_of() { GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'; }
cm="$(dir_of "github.com/cert-manager/cert-manager@$CERT_MANAGER")"
po="$(dir_of "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR")"
[ -n "$cm" ] && [ -n "$po" ] || { echo "third-party-crds: go mod download printed no module folder" >&2; exit 1; }
tmp="$(mktemp -d "$TOOLS_CACHE/.third-party-crds-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cp "$cm/deploy/crds/cert-manager.io_certificates.yaml" "$cm/deploy/crds/cert-manager.io_issuers.yaml" "$tmp/"
cp "$po/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml" "$po/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml" "$tmp/"
chmod 644 "$tmp"/*.yaml
rm -rf "$OUT"
chmod 755 "$tmp"
mv "$tmp" "$OUT"
trap - EXIT
echo "$OUT"
