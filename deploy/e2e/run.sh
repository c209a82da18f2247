#!/usr/bin/env bash
# make e2e-cluster: a real single-node Kubernetes cluster on this machine running the Helm
# install of Kollect (docs/e2e-cluster.md). Needs root (containers, mounts, iptables).
# Installs Debian's runc, CNI plugins and iptables when missing, builds the node components
# (build.sh cluster; make e2e-cluster runs make tools first) and the linux/amd64 images of the work tree, then runs the scenario.
# Usage: deploy/e2e/run.sh [go test flags after -args, e.g. -keep]
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3}
[ "$(id -u)" = 0 ] || { echo "e2e-cluster: run as root (it starts containers and changes iptables)" >&2; exit 2; }
missing=()
for p in runc containernetworking-plugins iptables conntrack; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[e2e] apt-get install ${missing[*]}" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
bash deploy/tools/build.sh cluster
t0=$SECONDS
go run ./deploy/images/cmd -worktree -platforms linux/amd64 -out dist/e2e-images
echo "[e2e] images built in $((SECONDS - t0))s" >&2
KOLLECT_TOOLS_DIR=$(bash deploy/tools/build.sh dir) exec go test -tags e2ecluster -count=1 -p 1 -timeout 60m -v \
  -run TestHelmInstallOnARealNode ./deploy/e2e/ \
  -args -images dist/e2e-images -report "$PWD/loadtest/results/e2e-cluster.md" "$@"
