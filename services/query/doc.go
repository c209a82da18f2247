// Package query is the query service: it serves the history API,
// query.kollect.dev/v1alpha1, as an aggregated API of the Kubernetes API
// server (an APIService), reading inventories' snapshot history from the
// bus with a read-only bus user. Callers use their own Kubernetes
// credentials; a caller sees an inventory's history only if they may get
// that KollectInventory (see internal/server).
//
// It owns no state: any number of replicas serve the same answers.
package query
