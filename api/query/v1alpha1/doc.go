// Package v1alpha1 holds the types of query.kollect.dev/v1alpha1, the
// read-only history API the query service serves through the Kubernetes API
// server (an aggregated API): an inventory's revisions, a revision's rows, a
// diff between two revisions and one object's timeline. The query service
// encodes them; `kollect history`, `kollect diff` and `kollect get inventory
// --at` decode them.
//
// They are not custom resources: nothing stores them, and controller-gen
// does not see them (no markers; the deep copies are written by hand).
package v1alpha1
