//go:build tools

// Package tools pins CoreDNS, the cluster DNS of make e2e-cluster (run on the host
// with its kubernetes plugin).
package tools

import _ "github.com/coredns/coredns"
