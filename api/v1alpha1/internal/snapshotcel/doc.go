// Package snapshotcel holds the CEL rules of KollectSnapshotSinkSpec
// (api/v1alpha1/snapshotsink_types.go), with the sink's effective type
// and endpoint written once, as the constants Type and Endpoint.
//
// A snapshot sink may leave spec.type out when its only block implies it,
// and a CRD default cannot infer it, so every rule that depends on the
// type recomputes it in CEL. The rules below name it {type} (and the
// endpoint {endpoint}); `go generate ./api/v1alpha1` (run by make
// generate) expands them into the XValidation markers between the lines
// "+kollect:generated:begin=snapshotcel" and
// "+kollect:generated:end=snapshotcel" of the spec's doc comment, and
// TestSnapshotSinkRulesAreGenerated in api/v1alpha1 fails when the
// markers there are stale or a marker elsewhere pastes the expression.
package snapshotcel
