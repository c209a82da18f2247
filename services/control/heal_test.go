package control_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

// H2 and H1: the config bucket lost with the NATS store (here deleted and
// provisioned again, as by hand: this control runs without
// --provision-bus) gets every object's config back and the config-complete
// marker; an inventory's entry carries the highest revision its sinks hold
// (status), which the aggregator never goes below.
func TestControlPutsEveryConfigIntoALostConfigBucket(t *testing.T) {
	ns := namespace(t)
	create(t, gitSink(ns, "git-a"))
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a"}}}}
	create(t, inv)
	invRef, sinkRef := ref(busv1.KindInventory, ns, "inv"), ref(busv1.KindSnapshotSink, ns, "git-a")
	exported := time.Now().UTC().Truncate(time.Second)
	publish(t, busv1.StatusReport{Service: busv1.ServiceSnapshotExporter, Kind: busv1.KindInventory, Namespace: ns,
		Name: "inv", Generation: 1, ObservedAt: exported, Export: &busv1.ExportStatus{
			Sink:           busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: ns, Name: "git-a"},
			LastExportTime: exported, Checksum: "abc", Revision: 9, OK: true}})
	whole := func() error {
		var cfg busv1.InventoryConfig
		if err := configEntry(t, invRef, &cfg); err != nil {
			return fmt.Errorf("inventory entry: %w", err)
		}
		if cfg.RevisionFloor != 9 {
			return fmt.Errorf("revisionFloor %d, want 9 (the sink's revision in status)", cfg.RevisionFloor)
		}
		var sink busv1.SinkConfig
		if err := configEntry(t, sinkRef, &sink); err != nil {
			return fmt.Errorf("sink entry: %w", err)
		}
		if _, err := shared.kv.Get(t.Context(), bus.ConfigCompleteKey); err != nil {
			return fmt.Errorf("marker: %w", err)
		}
		return nil
	}
	eventually(t, "the entries, the status floor and the marker", whole)

	if err := shared.nats.JS.DeleteKeyValue(t.Context(), bus.BucketConfig); err != nil {
		t.Fatal(err)
	}
	if err := bus.Provision(t.Context(), shared.nats.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "every entry and the marker put again", whole)
}
