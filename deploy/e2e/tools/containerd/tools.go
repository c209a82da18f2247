//go:build tools

// Package tools pins containerd for build.sh cluster (make e2e-cluster): kubelet
// 1.37 needs containerd 2, Debian bookworm ships 1.6.
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
