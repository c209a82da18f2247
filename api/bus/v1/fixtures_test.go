package busv1

import (
	"encoding/json"
	"time"
)

// Representative values for the golden files: every field set, cluster and
// namespaced variants where the shape differs.

var (
	t0 = time.Date(2026, 3, 14, 15, 9, 26, 535000000, time.UTC)
	t1 = t0.Add(90 * time.Second)
)

func podRow() Row {
	return Row{
		TargetNamespace: "team-a", TargetName: "pods",
		Namespace: "team-a", Name: "web-7d9f", UID: "5b0c1f6e-1d2a-4c39-9a51-0f3c2a9d1e77",
		Group: "", Version: "v1", Kind: "Pod",
		Attributes: map[string]any{
			"image":    "registry.example.com/web:1.4.2",
			"ready":    true,
			"restarts": float64(3),
			"ports":    []any{float64(8080), float64(9090)},
			"labels":   map[string]any{"app": "web", "tier": "frontend"},
			"node":     nil,
			"apiToken": map[string]any{"redacted": true, "reason": "sensitive-key"},
		},
	}
}

func nodeRow() Row {
	return Row{
		TargetName: "nodes", Name: "worker-1", UID: "c1d2e3f4-0000-4000-8000-000000000001",
		Version: "v1", Kind: "Node",
		Attributes: map[string]any{"kubeletVersion": "v1.37.2"},
	}
}

func gitSink() SinkRef {
	return SinkRef{Family: FamilySnapshot, Namespace: "team-a", Name: "git-main"}
}

func bindings() []Binding {
	return []Binding{
		{SinkRef: gitSink(), EffectiveInterval: Duration{30 * time.Second}, SinkGeneration: 4},
		{
			SinkRef:           SinkRef{Family: FamilyEvent, Namespace: "team-a", Name: "kafka"},
			EffectiveInterval: Duration{5 * time.Minute}, MaxExportBytes: 1 << 20, SinkGeneration: 2,
		},
	}
}

func envelope() Envelope {
	return Envelope{
		SchemaVersion:    SchemaVersion,
		Checksum:         "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		PreviousChecksum: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
		Revision:         42, Generation: 3, Cluster: "eu-west-1",
		Inventory: NamespacedName{Namespace: "team-a", Name: "apps"},
		ItemCount: 1, ExportedAt: t1, Items: []Row{podRow()},
	}
}

func targetConfig() TargetConfig {
	return TargetConfig{
		Kind: KindTarget, Namespace: "team-a", Name: "pods", UID: "0a1b2c3d-0000-4000-8000-00000000000a",
		Generation: 7, ProfileRef: NamespacedName{Namespace: "team-a", Name: "pod-basics"}, ProfileGeneration: 2,
		Profile:            json.RawMessage(`{"targetGVK":{"version":"v1","kind":"Pod"},"attributes":[{"name":"image","path":"$.spec.containers[0].image","type":"string"}]}`),
		ProfileAnnotations: map[string]string{"kollect.dev/allow-full-resource-export": "true"},
		Selection:          json.RawMessage(`{"profileRef":"pod-basics","includedNamespaces":["team-a"],"watchMode":"All"}`),
		Scope:              json.RawMessage(`{"allowedNamespaces":["team-a"],"minExportInterval":"1m"}`),
	}
}

func clusterTargetConfig() TargetConfig {
	return TargetConfig{
		Kind: KindClusterTarget, Name: "nodes", UID: "0a1b2c3d-0000-4000-8000-00000000000b",
		Generation: 1, Suspend: true,
		ProfileRef: NamespacedName{Namespace: "kollect-system", Name: "node-basics"}, ProfileGeneration: 1,
		Profile:   json.RawMessage(`{"targetGVK":{"version":"v1","kind":"Node"}}`),
		Selection: json.RawMessage(`{"profileRef":{"name":"node-basics","namespace":"kollect-system"},"namespaceSelector":{"matchLabels":{"env":"prod"}}}`),
	}
}

func inventoryConfig() InventoryConfig {
	return InventoryConfig{
		Kind: KindInventory, Namespace: "team-a", Name: "apps", UID: "0a1b2c3d-0000-4000-8000-00000000000c",
		Generation: 3, DeletionPolicy: DeletionDelete, Bindings: bindings(),
		MinExportInterval: Duration{30 * time.Second},
		History:           HistoryLimits{Revisions: 100, MaxAge: Duration{30 * 24 * time.Hour}},
		HistoryCap:        HistoryLimits{Revisions: 50, MaxBytes: 1 << 30},
	}
}

func clusterInventoryConfig() InventoryConfig {
	return InventoryConfig{
		Kind: KindClusterInventory, Name: "fleet", UID: "0a1b2c3d-0000-4000-8000-00000000000d",
		Generation: 9, Suspend: true, DeletionPolicy: DeletionRetain, Dedupe: DedupeByResourceUID,
		TargetRefs: []string{"deployments", "nodes"}, Namespaces: []string{"team-a", "team-b"},
		Bindings: []Binding{{
			SinkRef:           SinkRef{Family: FamilyDatabase, Namespace: "kollect-system", Name: "warehouse"},
			EffectiveInterval: Duration{time.Hour}, SinkGeneration: 1,
		}},
	}
}

func sinkConfig() SinkConfig {
	return SinkConfig{
		Family: FamilySnapshot, Type: "git", Namespace: "team-a", Name: "git-main",
		UID: "0a1b2c3d-0000-4000-8000-00000000000e", Generation: 4, Cluster: "eu-west-1",
		Spec: json.RawMessage(`{"type":"git","endpoint":"https://git.example.com/inv.git","secretRef":{"name":"git-creds"}}`),
	}
}
