// Command pause is the sandbox ("pause") container of make e2e-cluster's pods: it
// holds the pod's namespaces and waits for SIGTERM or SIGINT. It is built and
// imported into containerd as registry.k8s.io/pause by package e2e, so the
// cluster needs no image from a registry.
package main
