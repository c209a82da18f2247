// Package chart_test proves the kollect and kollect-crds Helm charts by what can run here
// without a container engine: helm lint and helm template (Helm from `make tools`) for every
// values file under ci/, a golden file of the default rendering, the rendered manifests
// accepted by a real kube-apiserver (server-side dry-run through envtest), least-privilege
// RBAC checked with SubjectAccessReviews, every service's rendered args parsed by that
// service's own flags, the NATS users' permissions compared with pkg/bus, and the kustomize
// base under deploy/kustomize/base regenerated from the chart (`make kustomize`).
//
// Run: go test ./charts/kollect (KOLLECT_TOOLS_DIR from `make tools-dir` when not set).
// Refresh generated files: go test ./charts/kollect -update.
package chart_test
