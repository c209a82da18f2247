// Package informers owns the collector's view of the cluster: one shared
// informer per GVK however many Targets read it, a metadata-only
// informer of Namespaces (their labels and annotations feed selection) and a
// metadata-only informer of CustomResourceDefinitions (a CRD added or removed
// resets the cached RESTMapper, so kinds installed later are picked up and
// removed kinds release their informer).
//
// The engine tells the Manager, per GVK, what its Targets need (Set): the
// fields they read, whether one namespace is enough, and the label or field
// selector they all share. The Manager resolves the GVK through discovery,
// passes the namespace and selectors to the API server, and lists and
// watches with a client whose decoder reads the API server's JSON straight
// into a compact Object (identity strings, sorted labels, the other kept
// fields as the JSON that was sent): only the fields some Target reads are
// kept, managedFields and every other field are only scanned. The engine
// rebuilds the kept fields when it evaluates an object. The Manager
// restarts an informer when the needed fields grow or the namespace or
// selectors change. A GVK that is not served, or that RBAC forbids, is
// reported as a State for the Targets that need it, and retried; nothing
// here ends the process.
//
// The Manager does not select, extract or write rows. It reports events to a
// Handler (the engine), which reads objects back from the cache.
package informers
