package gcs

import (
	"testing"

	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// TestState runs the object-store cases about the sink's own state on
// fake-gcs-server: drift and repair, fencing with ifGenerationMatch, the
// state read limit.
func TestState(t *testing.T) {
	objectstoretest.RunState(t, startPeer(t).fixture)
}
