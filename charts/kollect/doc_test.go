// Package chart_test proves the kollect and kollect-crds Helm charts by what can run here
// without a container engine: helm lint and helm template (Helm from `make tools`) for every
// values file under ci/, a golden file of the default rendering, the rendered manifests
// accepted by a real kube-apiserver (server-side dry-run through envtest), least-privilege
// RBAC checked with SubjectAccessReviews, every service's rendered args parsed by that
// service's own flags, the NATS users' permissions compared with pkg/bus, the kustomize
// base under deploy/kustomize/base regenerated from the chart (`make kustomize`), and an
// end-to-end run: control, collector, aggregator and two database exporter processes started
// with exactly the args and environment the chart renders, each reaching the real API server
// as its own service account (impersonation, the chart's RBAC applied) and an embedded NATS
// configured by the chart's nats.conf, exporting inventories to a real PostgreSQL.
//
// Run: go test ./charts/kollect (KOLLECT_TOOLS_DIR from `make tools-dir` when not set).
// Refresh generated files: go test ./charts/kollect -update.
package chart_test
