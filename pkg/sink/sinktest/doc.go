// Package sinktest is the conformance suite every sink backend of a family
// runs (STYLE.md): a repeated write is a no-op, an older revision never
// overwrites a newer one, deletes propagate, an empty snapshot empties the
// projection, a deleted inventory is removed, bad credentials are permanent
// errors and a cancelled context stops a write. Backends that implement
// sink.DeltaWriter are also checked to apply a delta to the same projection
// as the full snapshot.
//
// A backend's test calls Run with a Factory that creates a sink against a
// real peer and a Reader that reads back the projection as the peer stores
// it, so that the suite checks what consumers will see.
package sinktest
