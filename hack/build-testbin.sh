#!/usr/bin/env bash
# Builds the binaries and CRDs used by internal/kubetest into .cache/testbin/:
#
#   kube-apiserver  built from k8s.io/kubernetes at $KUBERNETES_VERSION
#   etcd            built from go.etcd.io/etcd/server/v3 at $ETCD_VERSION
#   crds/           the Flux CRDs copied from the controllers' module zips, and
#                   the ServiceMonitor, PrometheusRule, Certificate and Issuer
#                   CRDs from prometheus-operator's and cert-manager's, and
#                   Cluster API's MachineDeployment and KubeadmControlPlane
#                   (the objects status -A reads of each workload cluster)
#
# Everything comes from the Go module proxy: the script generates throw-away
# wrapper modules under .cache/testbin-src/ and builds them with the default
# GOPATH and GOCACHE, so the module and build caches are shared with the rest
# of the machine. Each part is skipped when its stamp file records the pinned
# version; delete .cache/testbin/ (or the stamp files) to force a rebuild.
#
# Usage: hack/build-testbin.sh [crds] [etcd] [kube-apiserver]   (default: all)
# Environment: SYLVA_PLANNER_TESTBIN overrides the output directory.
set -euo pipefail

KUBERNETES_VERSION=v1.37.2
KUBERNETES_STAGING_VERSION=v0.37.2
ETCD_VERSION=v3.7.3
HELM_CONTROLLER_VERSION=v1.4.0
KUSTOMIZE_CONTROLLER_VERSION=v1.9.6
SOURCE_CONTROLLER_VERSION=v1.9.6
# The CRDs of what config/prometheus creates: ServiceMonitor and
# PrometheusRule, Certificate and Issuer.
PROMETHEUS_OPERATOR_VERSION=v0.85.0
CERT_MANAGER_VERSION=v1.21.2
# The Cluster API kinds status -A and plan -A read: MachineDeployment and
# KubeadmControlPlane (v1beta1 and v1beta2 served, as from Cluster API 1.11).
CLUSTER_API_VERSION=v1.13.6

log_prefix=build-testbin
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build_crds() {
	local want="helm-controller@$HELM_CONTROLLER_VERSION kustomize-controller@$KUSTOMIZE_CONTROLLER_VERSION source-controller@$SOURCE_CONTROLLER_VERSION prometheus-operator@$PROMETHEUS_OPERATOR_VERSION cert-manager@$CERT_MANAGER_VERSION cluster-api@$CLUSTER_API_VERSION"
	if stamp_ok crds "$want" "$out/crds"; then
		log "crds: up to date ($want)"
		return
	fi
	log "crds: copying the CRDs ($want)"
	local tmp=$out/crds.tmp m dir
	rm -rf "$tmp"
	mkdir -p "$tmp"
	for m in \
		"github.com/fluxcd/helm-controller@$HELM_CONTROLLER_VERSION" \
		"github.com/fluxcd/kustomize-controller@$KUSTOMIZE_CONTROLLER_VERSION" \
		"github.com/fluxcd/source-controller@$SOURCE_CONTROLLER_VERSION"; do
		dir=$(module_dir "$m")
		if ! compgen -G "$dir/config/crd/bases/*.yaml" >/dev/null; then
			log "crds: no config/crd/bases/*.yaml in $m"
			return 1
		fi
		cp "$dir"/config/crd/bases/*.yaml "$tmp/"
	done
	dir=$(module_dir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")
	cp "$dir"/example/prometheus-operator-crd/monitoring.coreos.com_{servicemonitors,prometheusrules}.yaml "$tmp/"
	dir=$(module_dir "github.com/cert-manager/cert-manager@$CERT_MANAGER_VERSION")
	cp "$dir"/deploy/crds/cert-manager.io_{certificates,issuers}.yaml "$tmp/"
	dir=$(module_dir "sigs.k8s.io/cluster-api@$CLUSTER_API_VERSION")
	cp "$dir"/config/crd/bases/cluster.x-k8s.io_machinedeployments.yaml "$tmp/"
	cp "$dir"/controlplane/kubeadm/config/crd/bases/controlplane.cluster.x-k8s.io_kubeadmcontrolplanes.yaml "$tmp/"
	chmod 0644 "$tmp"/*.yaml
	rm -rf "$out/crds"
	mv "$tmp" "$out/crds"
	write_stamp crds "$want"
	log "crds: $(ls "$out/crds" | wc -l) files in $out/crds"
}

build_etcd() {
	local want="go.etcd.io/etcd/server/v3@$ETCD_VERSION $go_version"
	if stamp_ok etcd "$want" "$out/etcd"; then
		log "etcd: up to date ($want)"
		return
	fi
	local dir=$src/etcd start=$SECONDS
	log "etcd: building go.etcd.io/etcd/server/v3@$ETCD_VERSION"
	rm -rf "$dir"
	mkdir -p "$dir"
	cat >"$dir/go.mod" <<EOF
module testbin/etcd

go 1.26

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
EOF
	cat >"$dir/main.go" <<'EOF'
// Command etcd runs etcd for the kube-apiserver test harness.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
	(cd "$dir" && go mod tidy && CGO_ENABLED=0 go build -o "$out/etcd.tmp" .)
	mv "$out/etcd.tmp" "$out/etcd"
	write_stamp etcd "$want"
	log "etcd: built in $((SECONDS - start))s"
}

build_kube_apiserver() {
	local want="k8s.io/kubernetes@$KUBERNETES_VERSION $go_version"
	if stamp_ok kube-apiserver "$want" "$out/kube-apiserver"; then
		log "kube-apiserver: up to date ($want)"
		return
	fi
	local dir=$src/kube-apiserver start=$SECONDS gomod
	log "kube-apiserver: building k8s.io/kubernetes@$KUBERNETES_VERSION (10-15 min on 2 cores when the build cache is cold)"
	gomod=$(module_gomod "k8s.io/kubernetes@$KUBERNETES_VERSION")
	rm -rf "$dir"
	mkdir -p "$dir"
	{
		printf 'module testbin/kube-apiserver\n\ngo 1.26\n\nrequire k8s.io/kubernetes %s\n\n' "$KUBERNETES_VERSION"
		# k8s.io/kubernetes requires its staging modules at v0.0.0 and
		# replaces them by ./staging/...; use their published versions.
		sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/.*$#replace \1 => \1 '"$KUBERNETES_STAGING_VERSION"'#p' "$gomod" | sort -u
	} >"$dir/go.mod"
	if ! grep -q '^replace ' "$dir/go.mod"; then
		log "kube-apiserver: no staging replace directives found in $gomod"
		return 1
	fi
	cat >"$dir/tools.go" <<'EOF'
//go:build tools

// Package tools pins the kube-apiserver command in this wrapper module.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
EOF
	local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION"
	ldflags+=" -X k8s.io/component-base/version.gitMajor=$(echo "${KUBERNETES_VERSION#v}" | cut -d. -f1)"
	ldflags+=" -X k8s.io/component-base/version.gitMinor=$(echo "${KUBERNETES_VERSION#v}" | cut -d. -f2)"
	ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
	(cd "$dir" && CGO_ENABLED=0 go build -tags tools -ldflags "$ldflags" -o "$out/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
	mv "$out/kube-apiserver.tmp" "$out/kube-apiserver"
	write_stamp kube-apiserver "$want"
	log "kube-apiserver: built in $((SECONDS - start))s"
}

main() {
	mkdir -p "$out" "$src/download"
	# A scratch module to run `go mod download` in, away from the project's
	# go.mod and go.sum.
	printf 'module testbin/download\n\ngo 1.26\n' >"$src/download/go.mod"
	local parts=("$@")
	if ((${#parts[@]} == 0)); then
		parts=(crds etcd kube-apiserver)
	fi
	local p
	for p in "${parts[@]}"; do
		case $p in
		crds) build_crds ;;
		etcd) build_etcd ;;
		kube-apiserver) build_kube_apiserver ;;
		*)
			log "unknown part $p (want crds, etcd or kube-apiserver)"
			return 2
			;;
		esac
	done
	log "done: $out"
}

main "$@"
