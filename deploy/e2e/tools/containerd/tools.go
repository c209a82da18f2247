//go:build tools

// Package tools pins containerd 2 for build.sh cluster (make e2e-cluster): Kubernetes
// announced 1.35 as its last release supporting containerd 1.x; Debian bookworm ships 1.6.
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
