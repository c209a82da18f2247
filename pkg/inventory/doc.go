// Package inventory resolves what an inventory rolls up: for a
// KollectClusterInventory, which ClusterTargets (targetRefs and
// targetSelector) and which source namespaces (namespaces and
// namespaceSelector). Control uses it to compile inventory config; the
// command line uses it to build the same snapshots offline.
//
// inventory is pure: callers list the ClusterTargets and namespaces.
package inventory
