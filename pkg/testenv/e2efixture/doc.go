// Package e2efixture holds the tenant objects the end-to-end runs apply:
// the process-level one of charts/kollect and the cluster one of
// deploy/e2e install the same team-a tenant, so they share this text.
package e2efixture
