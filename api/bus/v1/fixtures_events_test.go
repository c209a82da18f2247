package busv1

import "time"

func snapshotEventInline() SnapshotEvent {
	env := envelope()
	env.Cluster, env.ExportedAt = "", time.Time{}
	return SnapshotEvent{
		Inventory: env.Inventory, Revision: env.Revision, Generation: env.Generation,
		Checksum: env.Checksum, PreviousChecksum: env.PreviousChecksum, ItemCount: env.ItemCount, CreatedAt: t0, Reason: ReasonChange,
		Envelope: &env,
		Delta: &Delta{
			BaseRevision: 41,
			BaseChecksum: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
			Upserts:      []Row{podRow()},
			Deletes:      []RowKey{{TargetNamespace: "team-a", TargetName: "pods", UID: "7e57d004-2b97-0e7a-b45f-5387367791cd"}},
		},
		Bindings: bindings(),
	}
}

func snapshotEventRef() SnapshotEvent {
	return SnapshotEvent{
		Inventory: NamespacedName{Name: "fleet"}, Revision: 1000, Generation: 9,
		Checksum: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ItemCount: 250000,
		CreatedAt: t0, Reason: ReasonPeriodic,
		EnvelopeRef: &ObjectRef{
			Bucket: "kollect-envelopes", Name: "=cluster.fleet.1000", Size: 73400320,
			Digest: "SHA-256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU=",
		},
		Bindings: []Binding{clusterInventoryConfig().Bindings[0]},
	}
}

func snapshotEventDeleted() SnapshotEvent {
	return SnapshotEvent{
		Inventory: NamespacedName{Namespace: "team-a", Name: "apps"}, Revision: 43, Generation: 3,
		Checksum: "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945", CreatedAt: t1,
		Reason: ReasonDeleted,
		Envelope: &Envelope{
			SchemaVersion: SchemaVersion, Checksum: "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
			Revision: 43, Generation: 3, Inventory: NamespacedName{Namespace: "team-a", Name: "apps"},
			Items: []Row{},
		},
		Bindings: bindings(), DeletionPolicy: DeletionDelete,
	}
}

func snapshotEventReplay() SnapshotEvent {
	ev := snapshotEventInline()
	ev.Delta = nil
	ev.Bindings = bindings()[:1]
	ev.Replay = &Replay{RequestedAt: t1, RequestedBy: "alice"}
	return ev
}

func snapshotEventBackfill() SnapshotEvent {
	ev := snapshotEventReplay()
	ev.Replay = &Replay{RequestedAt: t1, RequestedBy: "alice", UID: "0a1b2c3d-0000-4000-8000-00000000000f", Backfill: true, First: true}
	return ev
}

func targetStatusReport() StatusReport {
	return StatusReport{
		Service: ServiceCollector, Kind: KindTarget, Namespace: "team-a", Name: "pods",
		Generation: 7, ObservedAt: t0,
		Target: &TargetStatus{
			CollectedCount: 12, ExtractionFailures: 2,
			LastExtractionError: `team-a/web-7d9f: attribute "image": no value at $.spec.containers[0].image`,
			MatchedNamespaces:   []string{"team-a"},
		},
	}
}

func forbiddenStatusReport() StatusReport {
	return StatusReport{
		Service: ServiceCollector, Kind: KindClusterTarget, Name: "nodes", Generation: 1, ObservedAt: t0,
		Target: &TargetStatus{
			MatchedNamespaces: []string{},
			Outcome:           Outcome{Reason: "Forbidden", Message: "watch nodes: forbidden for serviceaccount kollect-system/kollect-collector"},
		},
	}
}

func inventoryStatusReport() StatusReport {
	return StatusReport{
		Service: ServiceAggregator, Kind: KindInventory, Namespace: "team-a", Name: "apps",
		Generation: 3, ObservedAt: t0,
		Inventory: &InventoryStatus{
			ItemCount: 1, Revision: 42, Checksum: envelope().Checksum,
			NextDue: []BindingDue{{Sink: gitSink(), NextDue: t0.Add(30 * time.Second)}},
		},
	}
}

func exportStatusReport() StatusReport {
	return StatusReport{
		Service: ServiceSnapshotExporter, Kind: KindInventory, Namespace: "team-a", Name: "apps",
		Generation: 3, ObservedAt: t1,
		Export: &ExportStatus{
			Sink: gitSink(), LastExportTime: t0, Checksum: envelope().Checksum, Revision: 41,
			Permanent: true,
			Outcome:   Outcome{Reason: "ExportFailed", Message: "push to https://git.example.com/inv.git: authentication required (secret team-a/git-creds)"},
		},
	}
}

func repairStatusReport() StatusReport {
	return StatusReport{
		Service: ServiceDatabaseExporter, Kind: KindInventory, Namespace: "team-a", Name: "apps",
		Generation: 3, ObservedAt: t1,
		Export: &ExportStatus{
			Sink: SinkRef{Family: FamilyDatabase, Namespace: "team-a", Name: "table"}, LastExportTime: t1,
			Checksum: envelope().Checksum, Revision: 42, OK: true, Repaired: "1998 rows, want 2000",
		},
	}
}

func connectionStatusReport() StatusReport {
	return StatusReport{
		Service: ServiceEventExporter, Kind: KindEventSink, Namespace: "team-a", Name: "kafka",
		Generation: 2, ObservedAt: t0,
		Connection: &ConnectionStatus{OK: true, LatencyMs: 12},
	}
}

func exportState() ExportState {
	return ExportState{
		Inventory: NamespacedName{Namespace: "team-a", Name: "apps"}, Sink: gitSink(),
		Checksum: envelope().Checksum, Revision: 42, ExportedAt: t1,
	}
}

func heldExportState() ExportState {
	st := exportState()
	st.Hold = &ExportHold{Replay: NamespacedName{Namespace: "team-a", Name: "apps-backfill"},
		UID: "0a1b2c3d-0000-4000-8000-00000000000f", Expires: t1.Add(2 * time.Minute)}
	return st
}

func deadLetter() DeadLetter {
	sink := gitSink()
	return DeadLetter{
		Subject: "kollect.snapshots.team-a.apps", StreamSequence: 1234,
		Headers: map[string][]string{"Nats-Msg-Id": {"team-a/apps/42"}},
		Sink:    &sink, Revision: 42, Time: t1,
		Outcome: Outcome{Reason: "InvalidPathTemplate", Message: "render path for team-a/apps: unknown placeholder {tenant}"},
	}
}
