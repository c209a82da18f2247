// Package access answers, with SubjectAccessReviews, whether an identity may
// list a kind in a namespace. Control uses it at every reconcile for the
// ServiceAccount a KollectTarget acts as, and the webhook for the user who
// makes a request; both map the Profile's kind to its resource the same way.
//
// It does not decide which namespaces a Target selects (package selection)
// nor what a Scope allows (package policy).
package access
