// Package informers owns the collector's view of the cluster: one shared
// dynamic informer per GVK however many Targets read it, a metadata-only
// informer of Namespaces (their labels and annotations feed selection) and a
// metadata-only informer of CustomResourceDefinitions (a CRD added or removed
// resets the cached RESTMapper, so kinds installed later are picked up and
// removed kinds release their informer).
//
// The engine tells the Manager, per GVK, what its Targets need (Set): the
// fields they read and whether one namespace is enough. The Manager resolves
// the GVK through discovery, scopes the informer to a single namespace when
// it can, and installs a transform that drops managedFields and every field
// no Target needs before objects are cached, and caches what is left as a
// compact Object (identity strings, sorted labels, the rest as JSON) that
// the engine rebuilds into an unstructured object when it evaluates it; it
// restarts an informer when the needed fields grow or the namespace scope
// changes. A GVK that is not served, or that RBAC forbids, is reported as a
// State for the Targets that need it, and retried; nothing here ends the
// process.
//
// The Manager does not select, extract or write rows. It reports events to a
// Handler (the engine), which reads objects back from the cache.
package informers
