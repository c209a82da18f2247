#!/usr/bin/env bash
# Builds the real test peers from the Go module proxy at pinned versions into a
# per-user cache shared by every clone on this machine. What is present is not
# rebuilt. Usage: build.sh [all|demo|lint|dir|lint-dir|vulndb-dir|cluster]   (progress on stderr)
# lint builds only the analyzers of make lint and the vulnerability database; demo builds only
# the peers `make demo` starts (etcd and kube-apiserver).
# cluster (opt-in, make e2e-cluster) builds the node components: kubelet, kube-controller-manager,
# kube-scheduler, kube-proxy (the pinned Kubernetes module), containerd and CoreDNS (docs/e2e-cluster.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# Bump PIN when any version below or a tools module changes: a new folder is built.
PIN=k8s-1.37.2_etcd-3.6.16_r1
K8S_VERSION=v1.37.2
VERSITYGW_VERSION=v1.8.0
FAKE_GCS_VERSION=v1.56.1
# Helm is pinned in deploy/tools/helm/go.mod; a tool added to an existing PIN folder needs
# no bump: what is missing is built, what is present is kept.
HELM_VERSION=v3.22.0
# DuckDB, the independent Parquet reader of the object-store docs tests: the npm package (its
# prebuilt bindings come from the npm registry too), run by the machine's node.
DUCKDB_NODE_API_VERSION=1.5.6-r.1
# Azurite, the Azure Blob Storage emulator of the azureblob sink tests (npm), run by the machine's node.
AZURITE_VERSION=3.37.0
# Release and security gate tools (make lint, make release), installed at pinned versions.
GOLANGCI_LINT_VERSION=v2.15.0
GOVULNCHECK_VERSION=v1.9.0
CYCLONEDX_GOMOD_VERSION=v1.10.0
COSIGN_VERSION=v2.6.5
dir=${KOLLECT_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kollect/tools/$PIN}
# The analyzers (golangci-lint, govulncheck) type-check the code with the standard library of
# the Go that runs them, so they are built by the project's toolchain, one folder per toolchain.
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3}
lint_dir="$dir/lint-$GOTOOLCHAIN"
# The offline vulnerability database (govulncheck -db file://...) is built from the
# golang.org/x/vulndb module pinned in deploy/tools/vulndb/go.mod, one folder per pin.
vulndb_dir="$dir/vulndb/$(awk '$1 == "golang.org/x/vulndb" {print $2}' "$here/vulndb/go.mod")"

case "${1:-all}" in
dir) echo "$dir"; exit 0 ;;
lint-dir) echo "$lint_dir"; exit 0 ;;
vulndb-dir) echo "$vulndb_dir"; exit 0 ;;
all | lint | demo | cluster) ;;
*) echo "usage: build.sh [all|demo|lint|dir|lint-dir|vulndb-dir|cluster]" >&2; exit 2 ;;
esac

mkdir -p "$dir/envtest" "$dir/bin" "$lint_dir"
export CGO_ENABLED=0 GOFLAGS=-mod=mod

step() { printf '[tools] %s\n' "$*" >&2; }
have() { [ -x "$1" ] && { step "present: $1"; return 0; }; return 1; }
timed() { local t0=$SECONDS; "$@"; step "  done in $((SECONDS - t0))s"; }

kube_ldflags="-s -w \
 -X k8s.io/component-base/version.gitVersion=$K8S_VERSION \
 -X k8s.io/component-base/version.gitMajor=1 \
 -X k8s.io/component-base/version.gitMinor=37 \
 -X k8s.io/component-base/version.gitTreeState=clean \
 -X k8s.io/component-base/version.buildDate=2026-01-01T00:00:00Z \
 -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION \
 -X k8s.io/client-go/pkg/version.gitMajor=1 \
 -X k8s.io/client-go/pkg/version.gitMinor=37"

build_in() { # module-dir output package [ldflags]
  local mod=$1 out=$2 pkg=$3 ld=${4:--s -w}
  have "$out" && return 0
  step "building $(basename "$out") ($pkg); the first build takes minutes"
  (cd "$here/$mod" && timed go build -trimpath -ldflags "$ld" -o "$out.tmp" "$pkg") && mv "$out.tmp" "$out"
}

install_at() { # output module-path@version
  local out=$1 pkg=$2
  have "$out" && return 0
  step "building $(basename "$out") ($pkg)"
  local gobin; gobin=$(mktemp -d)
  GOBIN=$gobin GOFLAGS= timed go install -trimpath -ldflags "-s -w" "$pkg"
  mv "$gobin"/* "$out" && rmdir "$gobin"
}

# The single-node cluster of make e2e-cluster: the control plane and node binaries of the same
# pinned Kubernetes module as the API server, into their own folder.
build_cluster() {
  local c="$dir/cluster"
  mkdir -p "$c"
  build_in etcd "$dir/envtest/etcd" .
  build_in kube "$dir/envtest/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver "$kube_ldflags"
  build_in kube "$dir/envtest/kubectl" k8s.io/kubernetes/cmd/kubectl "$kube_ldflags"
  local cmd
  for cmd in kubelet kube-controller-manager kube-scheduler kube-proxy; do
    build_in kube "$c/$cmd" "k8s.io/kubernetes/cmd/$cmd" "$kube_ldflags"
  done
  # containerd 2, pinned in deploy/e2e/tools/containerd/go.mod, without the cgo snapshotters:
  # Kubernetes announced 1.35 as its last release supporting containerd 1.x, and Debian's is 1.6.
  local ctrd=github.com/containerd/containerd/v2
  local ctrd_version; ctrd_version=$(awk -v m=$ctrd '$1 == m {print $2} $1 == "require" && $2 == m {print $3}' "$here/../e2e/tools/containerd/go.mod")
  for cmd in containerd containerd-shim-runc-v2 ctr; do
    GOFLAGS="$GOFLAGS -tags=no_btrfs,no_devmapper,no_zfs" build_in ../e2e/tools/containerd "$c/$cmd" "$ctrd/cmd/$cmd" \
      "-s -w -X $ctrd/version.Version=$ctrd_version -X $ctrd/version.Package=$ctrd"
  done
  # CoreDNS serves the cluster's DNS from the host (its kubernetes plugin), pinned in
  # deploy/e2e/tools/coredns/go.mod.
  build_in ../e2e/tools/coredns "$c/coredns" github.com/coredns/coredns
  step "cluster tools ready in $c"
}

mode=${1:-all} # the test peers are built for all, not for lint
if [ "$mode" = cluster ]; then build_cluster; exit 0; fi
if [ "$mode" = demo ]; then
  # The demo runs the API server and etcd; NATS is embedded, PostgreSQL and git come from Debian.
  t0=$SECONDS
  if [ ! -x "$dir/envtest/etcd" ] || [ ! -x "$dir/envtest/kube-apiserver" ]; then
    step "building etcd and kube-apiserver for the demo: the first build downloads the modules and compiles for tens of minutes on two cores (README.md has measured times); later runs reuse them"
  fi
  build_in etcd "$dir/envtest/etcd" .
  build_in kube "$dir/envtest/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver "$kube_ldflags"
  step "demo peers ready in $dir ($((SECONDS - t0))s)"
  exit 0
fi
if [ "$mode" = all ]; then
  build_in etcd "$dir/envtest/etcd" .
  build_in kube "$dir/envtest/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver "$kube_ldflags"
  build_in kube "$dir/envtest/kubectl" k8s.io/kubernetes/cmd/kubectl "$kube_ldflags"
  build_in ferretdb "$dir/bin/ferretdb" .
  install_at "$dir/bin/versitygw" "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
  install_at "$dir/bin/fake-gcs-server" "github.com/fsouza/fake-gcs-server@$FAKE_GCS_VERSION"
  # Helm's Makefile stamps the Kubernetes version its client-go speaks (here 1.37) as the default
  # capabilities of `helm template` and `helm lint`; without it they assume Kubernetes 1.20.
  helm_pkg=helm.sh/helm/v3
  helm_ldflags="-s -w -X $helm_pkg/internal/version.version=$HELM_VERSION -X $helm_pkg/internal/version.gitTreeState=clean"
  for p in pkg/lint/rules pkg/chartutil; do
    helm_ldflags+=" -X $helm_pkg/$p.k8sVersionMajor=1 -X $helm_pkg/$p.k8sVersionMinor=37"
  done
  build_in helm "$dir/bin/helm" $helm_pkg/cmd/helm "$helm_ldflags"
  # Kept in its own folder with the version it holds checked, so a new pin replaces it.
  duckdb_dir="$dir/node/duckdb"
  duckdb_have=$(sed -n 's/^ *"version": "\(.*\)",$/\1/p' "$duckdb_dir/node_modules/@duckdb/node-api/package.json" 2>/dev/null || true)
  if [ "$duckdb_have" = "$DUCKDB_NODE_API_VERSION" ]; then step "present: $duckdb_dir ($duckdb_have)"; else
    command -v npm >/dev/null || { step "npm is missing: install Debian's nodejs and npm (.ci/run does)"; exit 1; }
    step "installing @duckdb/node-api@$DUCKDB_NODE_API_VERSION into $duckdb_dir"
    rm -rf "$duckdb_dir.tmp" && mkdir -p "$duckdb_dir.tmp"
    timed npm install --prefix "$duckdb_dir.tmp" --no-audit --no-fund --ignore-scripts --loglevel=error \
      "@duckdb/node-api@$DUCKDB_NODE_API_VERSION" >&2
    rm -rf "$duckdb_dir" && mv "$duckdb_dir.tmp" "$duckdb_dir"
  fi
  # Azurite in its own folder the same way; testenv runs its blob service with node.
  azurite_dir="$dir/node/azurite"
  azurite_have=$(sed -n 's/^ *"version": "\(.*\)",$/\1/p' "$azurite_dir/node_modules/azurite/package.json" 2>/dev/null || true)
  if [ "$azurite_have" = "$AZURITE_VERSION" ]; then step "present: $azurite_dir ($azurite_have)"; else
    command -v npm >/dev/null || { step "npm is missing: install Debian's nodejs and npm (.ci/run does)"; exit 1; }
    step "installing azurite@$AZURITE_VERSION into $azurite_dir"
    rm -rf "$azurite_dir.tmp" && mkdir -p "$azurite_dir.tmp"
    timed npm install --prefix "$azurite_dir.tmp" --no-audit --no-fund --ignore-scripts --loglevel=error \
      "azurite@$AZURITE_VERSION" >&2
    rm -rf "$azurite_dir" && mv "$azurite_dir.tmp" "$azurite_dir"
  fi
  install_at "$dir/bin/cyclonedx-gomod" "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$CYCLONEDX_GOMOD_VERSION"
  install_at "$dir/bin/cosign" "github.com/sigstore/cosign/v2/cmd/cosign@$COSIGN_VERSION"
fi
# The security gates of make lint.
install_at "$lint_dir/golangci-lint" "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_LINT_VERSION"
install_at "$lint_dir/govulncheck" "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION"
if [ -f "$vulndb_dir/index/db.json" ]; then step "present: $vulndb_dir"; else
  step "building the vulnerability database into $vulndb_dir"
  rm -rf "$vulndb_dir.tmp"
  (cd "$here/vulndb" && timed go run . -out "$vulndb_dir.tmp") && mv "$vulndb_dir.tmp" "$vulndb_dir"
fi
step "tools ready in $dir"
