// Package v1alpha1 holds the Go types of Kollect's custom resources, group
// kollect.dev, version v1alpha1: what to extract (KollectProfile), which
// objects (KollectTarget, KollectClusterTarget), how rows roll up and how often
// they leave (KollectInventory, KollectClusterInventory), where they go
// (KollectSnapshotSink, KollectDatabaseSink, KollectEventSink), what a team may
// do (KollectScope, KollectClusterScope) and one-shot sink probes
// (KollectConnectionTest).
//
// The package owns the schema: field names, documentation (the `kubectl
// explain` text), defaults and every structural rule the API server checks
// itself (OpenAPI and CEL markers, rendered into api/crds by
// controller-gen). It also owns the condition types (conditions.go), the
// reasons with when each is set (reasons.go) and the error that carries one
// (ReasonError).
//
// It does not own rules that need other objects or the requesting user (Scope
// ceilings, SubjectAccessReviews, Secret opt-ins, expression compilation,
// endpoint address policy): the validating webhook and the reconcilers in
// services/control check those, with the same compilers the collector uses.
// docs/api-decisions.md records the choices that shaped the schema.
//
// +kubebuilder:object:generate=true
// +groupName=kollect.dev
package v1alpha1
