package busv1

import (
	"encoding/json"
	"fmt"
	"time"
)

// Kind is the Kubernetes kind of a Kollect object named in a bus message.
type Kind string

// The kinds that appear on the bus.
const (
	KindTarget           Kind = "KollectTarget"
	KindClusterTarget    Kind = "KollectClusterTarget"
	KindInventory        Kind = "KollectInventory"
	KindClusterInventory Kind = "KollectClusterInventory"
	KindSnapshotSink     Kind = "KollectSnapshotSink"
	KindDatabaseSink     Kind = "KollectDatabaseSink"
	KindEventSink        Kind = "KollectEventSink"
	KindConnectionTest   Kind = "KollectConnectionTest"
	KindReplay           Kind = "KollectReplay"
)

// Service names a Kollect service; it is the writer named in status reports.
type Service string

// The services of ARCHITECTURE.md.
const (
	ServiceControl          Service = "control"
	ServiceCollector        Service = "collector"
	ServiceAggregator       Service = "aggregator"
	ServiceSnapshotExporter Service = "snapshot-exporter"
	ServiceDatabaseExporter Service = "database-exporter"
	ServiceEventExporter    Service = "event-exporter"
	// ServiceQuery serves the history API (query.kollect.dev); it only reads.
	ServiceQuery Service = "query"
)

// Family is a sink family; each family has its own exporter service.
type Family string

// The sink families.
const (
	FamilySnapshot Family = "snapshot"
	FamilyDatabase Family = "database"
	FamilyEvent    Family = "event"
)

// Families lists every sink family in a stable order.
func Families() []Family {
	return []Family{FamilySnapshot, FamilyDatabase, FamilyEvent}
}

// Exporter returns the service that exports to sinks of this family.
func (f Family) Exporter() Service {
	return Service(string(f) + "-exporter")
}

// SinkKind returns the Kubernetes kind of sinks of this family.
func (f Family) SinkKind() Kind {
	switch f {
	case FamilySnapshot:
		return KindSnapshotSink
	case FamilyDatabase:
		return KindDatabaseSink
	case FamilyEvent:
		return KindEventSink
	}
	return ""
}

// NamespacedName identifies a namespaced or cluster-scoped object; Namespace
// is empty for cluster-scoped objects.
type NamespacedName struct {
	// Namespace of the object, empty for cluster-scoped kinds.
	Namespace string `json:"namespace"`
	// Name of the object.
	Name string `json:"name"`
}

// String returns "namespace/name", or "name" when the namespace is empty.
func (n NamespacedName) String() string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// SinkRef identifies one sink: its family, namespace and name.
type SinkRef struct {
	// Family of the sink: snapshot, database or event.
	Family Family `json:"family"`
	// Namespace of the sink object.
	Namespace string `json:"namespace"`
	// Name of the sink object.
	Name string `json:"name"`
}

// BindingName returns "<family>/<sink>", the name an inventory's
// status.sinkExports entry carries for this sink.
func (r SinkRef) BindingName() string {
	return string(r.Family) + "/" + r.Name
}

// Duration is a time.Duration serialised as a Go duration string ("1m30s").
type Duration struct {
	time.Duration
}

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.Duration.String())
}

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("decode duration: %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("decode duration %q: %w", s, err)
	}
	d.Duration = v
	return nil
}
