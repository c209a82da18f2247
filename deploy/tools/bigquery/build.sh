#!/usr/bin/env bash
# Builds goccy/bigquery-emulator (pinned by this folder's go.mod) into the bin/
# folder of the tools dir that deploy/tools/build.sh uses. Opt-in (`make
# tools-bigquery`): a cgo build of zetasql that takes 25+ minutes on two cores
# and 2-3 GB of RAM per compiler process. Needs clang (Debian package clang).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir=$(bash "$here/../build.sh" dir)
out=$dir/bin/bigquery-emulator
if [ -x "$out" ]; then
  printf '[tools] present: %s\n' "$out" >&2
  exit 0
fi
command -v clang >/dev/null || { echo "tools-bigquery: clang is missing (apt-get install clang)" >&2; exit 1; }
mkdir -p "$dir/bin"
printf '[tools] building bigquery-emulator; the first build takes 25+ minutes\n' >&2
t0=$SECONDS
cd "$here"
CGO_ENABLED=1 CC=clang CXX=clang++ GOFLAGS=-mod=mod \
  go build -trimpath -ldflags "-s -w" -o "$out.tmp" github.com/goccy/bigquery-emulator/cmd/bigquery-emulator
mv "$out.tmp" "$out"
printf '[tools]   done in %ss: %s\n' "$((SECONDS - t0))" "$out" >&2
