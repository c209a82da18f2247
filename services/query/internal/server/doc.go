// Package server serves query.kollect.dev/v1alpha1 with k8s.io/apiserver:
// a generic API server behind the Kubernetes API server's aggregation
// layer, with delegated authentication and authorization (TokenReview and
// SubjectAccessReview against the Kubernetes API server, as metrics-server
// does). Every request for an inventory's history is also checked with a
// SubjectAccessReview for `get` on that KollectInventory: the query
// resources' own RBAC never widens what a caller sees. It owns paging and
// the wire shape; package history answers the questions.
package server
