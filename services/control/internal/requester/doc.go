// Package requester records who chose an object's identity: the user whose
// request last set the spec of a KollectTarget or a sink, sealed by control
// so that nobody else can write the record. The webhook seals the record
// into annotations; control verifies it at every reconcile and reviews,
// with SubjectAccessReviews, that this user may act as the Target's
// ServiceAccount and read the sink's Secrets.
//
// It does not review access (package access) nor decide what a Target may
// collect.
package requester
