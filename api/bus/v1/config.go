package busv1

import (
	"encoding/json"
	"slices"
)

// Compiled config entries are written by control into the config KV bucket,
// one key per object, with a key prefix per kind (see pkg/bus ConfigKey). The
// kind in the key says which of TargetConfig, InventoryConfig or SinkConfig the
// value holds. Deleting the object deletes the key (a KV tombstone); other
// services converge on the latest value, level-based.

// TargetConfig is the compiled desired state of a KollectTarget or a
// KollectClusterTarget: the Target with its Profile and Scope resolved and
// validated, everything the collector needs to select and extract.
type TargetConfig struct {
	// Kind is KindTarget or KindClusterTarget.
	Kind Kind `json:"kind"`
	// Namespace of the Target; empty for a ClusterTarget.
	Namespace string `json:"namespace"`
	// Name of the Target.
	Name string `json:"name"`
	// UID of the Target object.
	UID string `json:"uid"`
	// Generation is the Target's metadata.generation this entry was compiled
	// from; status reports about it quote it back.
	Generation int64 `json:"generation"`
	// Suspend stops collection while true; existing rows are kept.
	Suspend bool `json:"suspend,omitempty"`
	// ProfileRef names the KollectProfile the Target references.
	ProfileRef NamespacedName `json:"profileRef"`
	// ProfileGeneration is the Profile's metadata.generation compiled in.
	ProfileGeneration int64 `json:"profileGeneration"`
	// Profile is the resolved KollectProfile spec (v1alpha1
	// KollectProfileSpec as JSON), already validated by control.
	Profile json.RawMessage `json:"profile"`
	// ProfileAnnotations are the Profile's extraction opt-in annotations
	// (kollect.dev/allow-secret-extraction,
	// kollect.dev/allow-full-resource-export) and no others.
	ProfileAnnotations map[string]string `json:"profileAnnotations,omitempty"`
	// Selection is the Target's spec (v1alpha1 KollectTargetSpec or
	// KollectClusterTargetSpec as JSON): namespace and object selection,
	// watch mode.
	Selection json.RawMessage `json:"selection"`
	// Scope is the spec of the Scope that bounds this Target (v1alpha1
	// KollectScopeSpec or KollectClusterScopeSpec as JSON), absent when no
	// Scope applies. The collector re-checks namespaces that appear later
	// against it.
	Scope json.RawMessage `json:"scope,omitempty"`
	// Access is what the Target's identity may read, as control last
	// checked it with SubjectAccessReviews. The collector collects only
	// within it, whatever the selection says, and collects nothing when it
	// is absent (fail closed).
	Access *TargetAccess `json:"access,omitempty"`
}

// TargetAccess bounds a Target's collection to what its identity may list.
type TargetAccess struct {
	// ServiceAccount is the identity checked, "<namespace>/<name>"; empty
	// for ClusterTargets and the command line, which act as the operator
	// or the user running them.
	ServiceAccount string `json:"serviceAccount,omitempty"`
	// AllNamespaces is true when the identity may list the kind
	// cluster-wide: every selected namespace, and cluster-scoped objects.
	AllNamespaces bool `json:"allNamespaces,omitempty"`
	// Namespaces are the selected namespaces the identity may list the
	// kind in, sorted, when AllNamespaces is false.
	Namespaces []string `json:"namespaces,omitempty"`
}

// AllowsNamespace reports whether the access covers namespace ns; "" asks
// about cluster-scoped objects. A nil access allows nothing.
func (a *TargetAccess) AllowsNamespace(ns string) bool {
	if a == nil {
		return false
	}
	if a.AllNamespaces {
		return true
	}
	if ns == "" {
		return false
	}
	_, found := slices.BinarySearch(a.Namespaces, ns)
	return found
}

// InventoryConfig is the compiled desired state of a KollectInventory or a
// KollectClusterInventory: the inventory with its sink bindings resolved and
// its effective cadence computed, everything the aggregator needs.
type InventoryConfig struct {
	// Kind is KindInventory or KindClusterInventory.
	Kind Kind `json:"kind"`
	// Namespace of the inventory; empty for a ClusterInventory.
	Namespace string `json:"namespace"`
	// Name of the inventory.
	Name string `json:"name"`
	// UID of the inventory object.
	UID string `json:"uid"`
	// Generation is the inventory's metadata.generation compiled.
	Generation int64 `json:"generation"`
	// Suspend stops snapshots and exports while true.
	Suspend bool `json:"suspend,omitempty"`
	// DeletionPolicy says what happens to exported data when the inventory
	// is deleted.
	DeletionPolicy DeletionPolicy `json:"deletionPolicy"`
	// Dedupe is the ClusterInventory's dedupe mode; empty for namespaced
	// inventories.
	Dedupe Dedupe `json:"dedupe,omitempty"`
	// TargetRefs are the names of the ClusterTargets a ClusterInventory
	// rolls up, with targetSelector already resolved. Empty for namespaced
	// inventories, whose rows are those of every Target in their namespace.
	TargetRefs []string `json:"targetRefs,omitempty"`
	// Namespaces restricts a ClusterInventory to rows from these source
	// namespaces (namespaceSelector and namespaces[] resolved). null means
	// no restriction; an empty list means no namespace matched.
	Namespaces []string `json:"namespaces"`
	// Bindings are the resolved sinks this inventory exports to, sorted by
	// family, namespace and name.
	Bindings []Binding `json:"bindings"`
	// MinExportInterval is the Scope floor for every interval of this
	// inventory, already applied to each binding's EffectiveInterval; zero
	// when no Scope sets one.
	MinExportInterval Duration `json:"minExportInterval"`
	// RevisionFloor is the last revision the inventory's status recorded
	// (status.lastRevision, kept in etcd, not on the bus): the aggregator
	// never continues the sequence at or below it, even when the snapshot
	// history and the export state were both lost. Zero for an inventory
	// that never published, or was deleted and created again.
	RevisionFloor uint64 `json:"revisionFloor,omitempty"`
	// History is the retention the inventory asked for (spec.history);
	// a zero field keeps the aggregator's default.
	History HistoryLimits `json:"history,omitzero"`
	// HistoryCap is the Scope's maxHistory: the aggregator lowers the
	// effective retention (asked or default) to each non-zero field.
	HistoryCap HistoryLimits `json:"historyCap,omitzero"`
	// NamespaceQuota is the Scope's tightening of the operator's quota on
	// what all inventories of the inventory's namespace keep on the bus
	// (the aggregator's --namespace-bus-bytes and
	// --namespace-history-revisions); a zero field keeps the operator's.
	// Cluster inventories are not counted in any namespace.
	NamespaceQuota NamespaceQuota `json:"namespaceQuota,omitzero"`
}

// NamespaceQuota bounds what all inventories of one namespace keep on the
// bus; a zero field sets no bound of its own.
type NamespaceQuota struct {
	// BusBytes bounds every byte the namespace's inventories keep on the
	// bus: snapshot events (inline envelopes and deltas, periodic events),
	// the objects their retained events reference (chunks, manifests,
	// envelopes, deltas), and dead letters.
	BusBytes int64 `json:"busBytes,omitempty"`
	// HistoryRevisions bounds the distinct revisions all of the
	// namespace's inventories retain together.
	HistoryRevisions int64 `json:"historyRevisions,omitempty"`
}

// HistoryLimits bound an inventory's retained snapshot history; a zero
// field sets no limit of its own.
type HistoryLimits struct {
	// Revisions is how many snapshot revisions to keep.
	Revisions int64 `json:"revisions,omitempty"`
	// MaxAge is how long a revision is kept after it was published.
	MaxAge Duration `json:"maxAge,omitzero"`
	// MaxBytes bounds the bytes the kept revisions reference.
	MaxBytes int64 `json:"maxBytes,omitempty"`
}

// Binding is one resolved (inventory, sink) pair with its effective cadence
// and size limit.
type Binding struct {
	SinkRef
	// EffectiveInterval is the periodic re-export interval of an unchanged
	// snapshot: per-binding override, else sink default, else inventory
	// default, raised to the Scope floor.
	EffectiveInterval Duration `json:"effectiveInterval"`
	// MaxExportBytes is the largest single message or file part for sinks
	// that need parts; zero means no limit.
	MaxExportBytes int64 `json:"maxExportBytes,omitempty"`
	// SinkGeneration is the sink's metadata.generation when the binding was
	// resolved, so an exporter can wait for the matching SinkConfig.
	SinkGeneration int64 `json:"sinkGeneration"`
}

// SinkConfig is the compiled desired state of a family sink
// (KollectSnapshotSink, KollectDatabaseSink or KollectEventSink). It never
// holds secret material: exporters read the referenced Secret themselves.
type SinkConfig struct {
	// Family of the sink.
	Family Family `json:"family"`
	// Type is the sink's spec.type within its family (git, s3, postgres,
	// kafka, ...).
	Type string `json:"type"`
	// Namespace of the sink.
	Namespace string `json:"namespace"`
	// Name of the sink.
	Name string `json:"name"`
	// UID of the sink object.
	UID string `json:"uid"`
	// Generation is the sink's metadata.generation compiled.
	Generation int64 `json:"generation"`
	// Cluster is the sink's fleet partition key (spec.cluster, defaulted),
	// stamped into every envelope written to it.
	Cluster string `json:"cluster"`
	// Spec is the sink's defaulted spec (v1alpha1 sink spec as JSON).
	Spec json.RawMessage `json:"spec"`
}

// DeletionPolicy is an inventory's spec.deletionPolicy.
type DeletionPolicy string

// The deletion policies.
const (
	// DeletionRetain leaves exported data in place when the inventory is
	// deleted.
	DeletionRetain DeletionPolicy = "Retain"
	// DeletionDelete removes exported data from snapshot stores and
	// databases and sends a final empty snapshot to event sinks.
	DeletionDelete DeletionPolicy = "Delete"
)

// Dedupe is a ClusterInventory's spec.dedupe.
type Dedupe string

// The dedupe modes.
const (
	// DedupeKeepAll keeps one row per (target, object).
	DedupeKeepAll Dedupe = "keepAll"
	// DedupeByResourceUID keeps one row per object uid across targets.
	DedupeByResourceUID Dedupe = "byResourceUID"
)

// Suspended returns c marked suspended at generation gen, the rest of the
// compiled config kept: control writes it while spec.suspend is true.
func (c TargetConfig) Suspended(gen int64) TargetConfig {
	c.Suspend, c.Generation = true, gen
	return c
}

// Suspended returns c marked suspended at generation gen, the rest of the
// compiled config kept: control writes it while spec.suspend is true.
func (c InventoryConfig) Suspended(gen int64) InventoryConfig {
	c.Suspend, c.Generation = true, gen
	return c
}
