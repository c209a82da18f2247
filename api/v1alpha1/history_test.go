package v1alpha1_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// TestTheBusKeepsTheLargestRetentionTheAPIAdmits ties spec.history's bounds
// to the stream's default limits: an admitted retention must fit.
func TestTheBusKeepsTheLargestRetentionTheAPIAdmits(t *testing.T) {
	o := bus.DefaultOptions()
	if o.SnapshotHistory < v1alpha1.MaxHistoryRevisions || bus.MaxHistoryRevisions != v1alpha1.MaxHistoryRevisions {
		t.Errorf("the stream keeps %d events per inventory (bus.MaxHistoryRevisions %d), spec.history.revisions admits %d",
			o.SnapshotHistory, bus.MaxHistoryRevisions, v1alpha1.MaxHistoryRevisions)
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "api", "v1alpha1", "history_types.go"))
	if err != nil {
		t.Fatal(err)
	}
	bound := "duration('" + strings.TrimSuffix(bus.MaxHistoryAge.String(), "0m0s") + "')"
	if o.SnapshotMaxAge < bus.MaxHistoryAge || !strings.Contains(string(b), bound) {
		t.Errorf("the stream keeps events for %v; spec.history.maxAge must be bounded by %s", o.SnapshotMaxAge, bound)
	}
}
