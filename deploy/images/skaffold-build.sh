#!/usr/bin/env bash
# skaffold's custom builder for Kollect: builds the image of one binary without a Docker
# daemon (deploy/images, go-containerregistry) from the work tree and pushes it to $IMAGE.
#   deploy/images/skaffold-build.sh <binary>     binary: control, collector, ..., kollect
# skaffold sets IMAGE (the full reference with its tag), PUSH_IMAGE and, with --platform,
# PLATFORMS. There is no daemon to load an image into, so a registry is required:
# skaffold dev --default-repo=<registry> (skaffold.yaml sets build.local.push: true).
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:?usage: skaffold-build.sh <binary>}
[ "$binary" = kollect ] || binary=kollect-$binary
: "${IMAGE:?IMAGE is not set: run this from skaffold (or set IMAGE=<registry>/<name>:<tag>)}"
if [ "${PUSH_IMAGE:-true}" != true ]; then
  echo "skaffold-build: images are pushed, never loaded into a daemon; set a registry (--default-repo) and build.local.push: true" >&2
  exit 1
fi
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3}
exec go run ./deploy/images/cmd -worktree -binaries "$binary" -ref "$IMAGE" \
  -platforms "${PLATFORMS:-linux/$(go env GOARCH)}" -out "${TMPDIR:-/tmp}/kollect-skaffold-images/$binary"
