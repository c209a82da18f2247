// Package admission is control's validating webhook for the kollect.dev
// kinds: Scope ceilings, cross-namespace selection (a SubjectAccessReview
// for the requesting user), Secret extraction opt-ins, expression compile
// errors and the sink endpoint policy. It also provisions the webhook's
// serving certificate when no cert-manager certificate is mounted.
//
// Every rule here is checked again at reconcile by package reconcile, so a
// cluster without the webhook stays safe; this package only refuses early.
package admission
