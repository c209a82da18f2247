package bus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// configKinds are the kinds with an entry in BucketConfig, and the value type
// each holds.
var configKinds = []busv1.Kind{
	busv1.KindTarget, busv1.KindClusterTarget,
	busv1.KindInventory, busv1.KindClusterInventory,
	busv1.KindSnapshotSink, busv1.KindDatabaseSink, busv1.KindEventSink,
	busv1.KindReplay,
}

// ConfigKinds lists the kinds with entries in BucketConfig. Targets hold a
// busv1.TargetConfig, inventories a busv1.InventoryConfig, sinks a
// busv1.SinkConfig, replays a busv1.ReplayRequest.
func ConfigKinds() []busv1.Kind { return slices.Clone(configKinds) }

// ConfigRef is what a config key names.
type ConfigRef struct {
	// Kind of the object; the key's first token, so each kind is a prefix.
	Kind busv1.Kind
	// Namespace of the object; empty for cluster-scoped kinds.
	Namespace string
	// Name of the object.
	Name string
}

// ConfigKey returns <kind>.<namespace>.<name>, the key of an object's
// compiled config in BucketConfig, e.g. KollectTarget.team-a.pods.
func ConfigKey(r ConfigRef) string {
	return join(nil, string(r.Kind), r.Namespace, r.Name)
}

// ConfigKeyFilter returns <kind>.>, the watch filter for every entry of one
// kind.
func ConfigKeyFilter(k busv1.Kind) string {
	return EncodeToken(string(k)) + ".>"
}

// ParseConfigKey inverts ConfigKey and rejects kinds that have no config.
func ParseConfigKey(key string) (ConfigRef, error) {
	v, err := split("config key", key, nil, 3)
	if err != nil {
		return ConfigRef{}, err
	}
	r := ConfigRef{Kind: busv1.Kind(v[0]), Namespace: v[1], Name: v[2]}
	if !slices.Contains(configKinds, r.Kind) {
		return ConfigRef{}, fmt.Errorf("parse config key %q: kind %q has no compiled config", key, r.Kind)
	}
	return r, nil
}

// RowKey returns <targetNamespace>.<target>.<uid>, the key of a row in
// BucketRows. A ClusterTarget's rows use the empty namespace (EmptyToken),
// whatever TargetNamespace holds.
func RowKey(k busv1.RowKey) string {
	ns := k.TargetNamespace
	if k.ClusterTarget {
		ns = ""
	}
	return join(nil, ns, k.TargetName, k.UID)
}

// RowKeyFilter returns the watch filter for every row of one Target; pass the
// empty namespace for a ClusterTarget.
func RowKeyFilter(targetNamespace, targetName string) string {
	return join(nil, targetNamespace, targetName) + ".*"
}

// RowNamespaceFilter returns the watch filter for the rows of every Target in
// one namespace (the rows a namespaced inventory rolls up); the empty
// namespace selects every ClusterTarget's rows.
func RowNamespaceFilter(targetNamespace string) string {
	return EncodeToken(targetNamespace) + ".>"
}

// ParseRowKey inverts RowKey; ClusterTarget is set when the namespace is
// empty.
func ParseRowKey(key string) (busv1.RowKey, error) {
	v, err := split("row key", key, nil, 3)
	if err != nil {
		return busv1.RowKey{}, err
	}
	return busv1.RowKey{TargetNamespace: v[0], TargetName: v[1], UID: v[2], ClusterTarget: v[0] == ""}, nil
}

// LeaseKey returns <service>, the key of a service's leader lease in
// BucketLeases.
func LeaseKey(s busv1.Service) string {
	return EncodeToken(string(s))
}

// ShardKeysFilter returns <service>.>, the keys in BucketLeases of a
// sharded service's members and shard leases (pkg/shard with role
// ShardRole(s)): <service>.members.<identity> and
// <service>.shards.<shards>.<shard>.
func ShardKeysFilter(s busv1.Service) string {
	return ShardRole(s) + ".>"
}

// ShardRole returns the role token a sharded service gives pkg/shard.
func ShardRole(s busv1.Service) string {
	return EncodeToken(string(s))
}

// ExportStateKey returns
// <inventoryNamespace>.<inventory>.<family>.<sinkNamespace>.<sink>, the key
// of a binding's last delivery in BucketExportState.
func ExportStateKey(inv busv1.NamespacedName, sink busv1.SinkRef) string {
	return join(nil, inv.Namespace, inv.Name, string(sink.Family), sink.Namespace, sink.Name)
}

// ExportStateFilter returns the key filter of every binding's export state
// of inventory inv in BucketExportState.
func ExportStateFilter(inv busv1.NamespacedName) string {
	return join(nil, inv.Namespace, inv.Name) + ".>"
}

// ParseExportStateKey inverts ExportStateKey.
func ParseExportStateKey(key string) (busv1.NamespacedName, busv1.SinkRef, error) {
	v, err := split("export-state key", key, nil, 5)
	if err != nil {
		return busv1.NamespacedName{}, busv1.SinkRef{}, err
	}
	return busv1.NamespacedName{Namespace: v[0], Name: v[1]},
		busv1.SinkRef{Family: busv1.Family(v[2]), Namespace: v[3], Name: v[4]}, nil
}

// EnvelopeObjectName returns <namespace>.<inventory>.<revision>, the name of a
// large envelope in ObjectStoreEnvelopes.
func EnvelopeObjectName(inv busv1.NamespacedName, revision uint64) string {
	return join(nil, inv.Namespace, inv.Name) + "." + strconv.FormatUint(revision, 10)
}

// ParseEnvelopeObjectName inverts EnvelopeObjectName.
func ParseEnvelopeObjectName(name string) (busv1.NamespacedName, uint64, error) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return busv1.NamespacedName{}, 0, fmt.Errorf("parse envelope object name %q: no revision", name)
	}
	rev, err := strconv.ParseUint(name[i+1:], 10, 64)
	if err != nil || strconv.FormatUint(rev, 10) != name[i+1:] {
		return busv1.NamespacedName{}, 0, fmt.Errorf("parse envelope object name %q: bad revision %q", name, name[i+1:])
	}
	v, err := split("envelope object name", name[:i], nil, 2)
	if err != nil {
		return busv1.NamespacedName{}, 0, err
	}
	return busv1.NamespacedName{Namespace: v[0], Name: v[1]}, rev, nil
}

// SnapshotMsgID returns the Nats-Msg-Id header of a snapshot event:
// <namespace>.<inventory>.<revision>.<reason>.<createdAt in Unix nanoseconds>.
// A publish retried with the same event value is stored once, while the
// periodic re-exports of one unchanged revision stay distinct events.
func SnapshotMsgID(e busv1.SnapshotEvent) string {
	return join(nil, e.Inventory.Namespace, e.Inventory.Name) + "." + strconv.FormatUint(e.Revision, 10) + "." +
		EncodeToken(string(e.Reason)) + "." + strconv.FormatInt(e.CreatedAt.UnixNano(), 10)
}

// ReplayMsgID returns the Nats-Msg-Id header of a replayed snapshot event
// (e.Replay set): SnapshotMsgID with the reason token "replay" and the
// replay's request time, so each replay request is a distinct event and
// never collides with the original. It panics when e.Replay is nil.
func ReplayMsgID(e busv1.SnapshotEvent) string {
	e.Reason, e.CreatedAt = "replay", e.Replay.RequestedAt
	return SnapshotMsgID(e)
}

// Marker keys are single entries a service writes into a bucket to say that
// the bucket's content is complete. Their first token, "=marker", is not a
// valid token (DecodeToken rejects it), so no config, row or export-state
// key can collide with them, no Parse*Key accepts them, and no watch filter
// built from a kind or namespace matches them.
const (
	// ConfigCompleteKey, in BucketConfig, is written by control after a
	// full pass that put the compiled config of every object. While it is
	// missing (the bucket was lost, re-created or emptied and control has
	// not re-put everything yet), readers apply puts but hold the deletions
	// that follow from a missing entry.
	ConfigCompleteKey = markerToken + ".config-complete"
	// RowsSyncedKey, in BucketRows, was written by the single active
	// collector of earlier releases once its initial sync was on the bus.
	// The collector now writes one marker per shard (RowsSyncedShardKey),
	// and RowsSyncedKey is their common prefix.
	RowsSyncedKey = markerToken + ".rows-synced"
)

// DefaultCollectorShards is the collector's default shard count
// (--shards), which the aggregator's --collector-shards must equal.
const DefaultCollectorShards = 8

// RowsSyncedShardKey returns =marker.rows-synced.<shards>.<shard>, the
// marker the collector replica holding shard of shards writes in
// BucketRows once the initial sync of the shard's Targets is on the bus.
// While any of the shards' markers is missing (the bucket was lost or
// re-created and the collector is refilling it), the aggregator publishes
// no snapshot built from rows.
func RowsSyncedShardKey(shards, shard int) string {
	return RowsSyncedKey + "." + strconv.Itoa(shards) + "." + strconv.Itoa(shard)
}

// ParseRowsSyncedShardKey inverts RowsSyncedShardKey; ok is false for any
// other key.
func ParseRowsSyncedShardKey(key string) (shards, shard int, ok bool) {
	rest, found := strings.CutPrefix(key, RowsSyncedKey+".")
	if !found {
		return 0, 0, false
	}
	n, i, found := strings.Cut(rest, ".")
	if !found {
		return 0, 0, false
	}
	shards, err1 := strconv.Atoi(n)
	shard, err2 := strconv.Atoi(i)
	if err1 != nil || err2 != nil || shards < 1 || shard < 0 || shard >= shards ||
		RowsSyncedShardKey(shards, shard) != key {
		return 0, 0, false
	}
	return shards, shard, true
}

const markerToken = "=marker"

// MarkerKeys is the watch filter of every marker key of a bucket.
const MarkerKeys = markerToken + ".>"

// IsMarkerKey reports whether key is a marker key (ConfigCompleteKey,
// RowsSyncedKey, RowsSyncedShardKey), which names no object.
func IsMarkerKey(key string) bool {
	return strings.HasPrefix(key, markerToken+".")
}
