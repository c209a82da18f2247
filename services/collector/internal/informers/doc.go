// Package informers owns the collector's view of the cluster: one shared
// informer per GVK however many Targets read it, a metadata-only
// informer of Namespaces (their labels and annotations feed selection) and a
// metadata-only informer of CustomResourceDefinitions (a CRD added or removed
// resets the cached RESTMapper, so kinds installed later are picked up and
// removed kinds release their informer).
//
// The engine tells the Manager, per GVK, what its Targets need (Set): the
// fields they read and whether one namespace is enough. The Manager resolves
// the GVK through discovery, scopes the informer to a single namespace when
// it can, and lists and watches with a client whose decoder reads the API
// server's JSON straight into a compact Object (identity strings, sorted
// labels, the rest as unstructured content): only the fields some Target
// reads are built, managedFields and every other field are only scanned,
// and the engine reads the cached content as it is, with no decode per
// event. It restarts an informer when the needed fields grow or the
// namespace scope changes. A GVK that is not served, or that RBAC forbids, is reported as a
// State for the Targets that need it, and retried; nothing here ends the
// process.
//
// The Manager does not select, extract or write rows. It reports events to a
// Handler (the engine), which reads objects back from the cache.
package informers
