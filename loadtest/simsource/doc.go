// Package simsource is a simulated Kubernetes API server for load tests: it
// serves a deterministic set of objects (ConfigMaps, Deployments and Pods,
// built-in kinds in JSON and protobuf, and Widgets, a custom resource in
// JSON) through enough of the API for client-go informers — discovery,
// paged LIST with limit and continue, WATCH from a resourceVersion with
// bookmarks, and the streaming watch-list of sendInitialEvents — so that a
// collector can watch a million objects without an etcd holding them.
//
// Objects are generated from their index when served; the source only
// stores what a change made (a new seq annotation, a deletion, an added
// object) and a bounded log of recent events, so its memory grows with the
// changes, not the inventory. Modify, Delete and Add apply changes; every
// open watch receives them in resourceVersion order.
package simsource
