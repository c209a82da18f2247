// Package access answers, with SubjectAccessReviews, whether an identity may
// list a kind in a namespace. Control uses it at every reconcile for the
// ServiceAccount a KollectTarget acts as, and the webhook for the user who
// makes a request; both map the Profile's kind to its resource the same way.
// Control's reviewer keeps answers in a Cache, bounded in time and size,
// that binding changes invalidate per identity; the webhook's keeps none.
//
// It does not decide which namespaces a Target selects (package selection)
// nor what a Scope allows (package policy).
package access
