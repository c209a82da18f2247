package azureblob

import (
	"testing"

	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// TestState runs the object-store cases about the sink's own state on
// Azurite: drift and repair, fencing with If-Match and If-None-Match, the
// state read limit.
func TestState(t *testing.T) {
	objectstoretest.RunState(t, startPeer(t).fixture)
}
