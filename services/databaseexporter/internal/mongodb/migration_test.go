package mongodb

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// legacy writes what the earlier version of the sink left in r's
// collections after writing snap: one document per row with the identity
// document as _id, the inventory index, and the state without a layout.
// withNulls adds the row identity fields as explicit nulls: FerretDB then
// counts two documents of one inventory as duplicates in the new unique
// index, as MongoDB does with the fields missing.
func legacy(t *testing.T, r reader, snap sink.Snapshot, withNulls bool) {
	t.Helper()
	ctx, env := t.Context(), snap.Envelope
	for _, row := range env.Items {
		raw, err := encodeRow(row)
		if err != nil {
			t.Fatal(err)
		}
		doc := bson.D{
			{Key: "_id", Value: bson.D{{Key: "cluster", Value: env.Cluster}, {Key: "inventoryNamespace", Value: env.Inventory.Namespace},
				{Key: "inventoryName", Value: env.Inventory.Name}, {Key: "targetNamespace", Value: row.TargetNamespace},
				{Key: "targetName", Value: row.TargetName}, {Key: "uid", Value: row.UID}}},
			{Key: "cluster", Value: env.Cluster}, {Key: "inventoryNamespace", Value: env.Inventory.Namespace},
			{Key: "inventoryName", Value: env.Inventory.Name}, {Key: "revision", Value: sink.Revision64(env.Revision)},
			{Key: "checksum", Value: env.Checksum}, {Key: "exportedAt", Value: env.ExportedAt}, {Key: "row", Value: raw},
		}
		if withNulls {
			doc = append(doc, bson.E{Key: "targetNamespace"}, bson.E{Key: "targetName"}, bson.E{Key: "uid"})
		}
		if _, err := r.data.InsertOne(ctx, doc); err != nil {
			t.Fatalf("insert a document of the earlier layout: %v", err)
		}
	}
	if _, ok := indexes(t, r)[IdentityIndex]; !ok {
		legacyIndexes(t, r)
	}
	id := bson.D{{Key: "cluster", Value: env.Cluster}, {Key: "namespace", Value: env.Inventory.Namespace}, {Key: "name", Value: env.Inventory.Name}}
	if _, err := r.state.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "revision", Value: sink.Revision64(env.Revision)},
		{Key: "checksum", Value: env.Checksum}, {Key: "exportedAt", Value: env.ExportedAt}}); err != nil {
		t.Fatalf("insert the state of the earlier layout: %v", err)
	}
}

// legacyIndexes creates the indexes of the earlier version in r.
func legacyIndexes(t *testing.T, r reader) {
	t.Helper()
	keys := bson.D{}
	for _, f := range identityFields {
		keys = append(keys, bson.E{Key: "_id." + f, Value: 1})
	}
	for _, m := range []mongo.IndexModel{
		{Keys: keys, Options: options.Index().SetName(IdentityIndex).SetUnique(true)},
		{Keys: bson.D{{Key: "cluster", Value: 1}, {Key: "inventoryNamespace", Value: 1}, {Key: "inventoryName", Value: 1}, {Key: "revision", Value: 1}},
			Options: options.Index().SetName("kollect_inventory")},
	} {
		if _, err := r.data.Indexes().CreateOne(t.Context(), m); err != nil {
			t.Fatalf("create an index of the earlier layout: %v", err)
		}
	}
}

// legacyCount counts r's documents of the earlier layout for (cluster, inv).
func legacyCount(t *testing.T, r reader, cluster string, inv busv1.NamespacedName) int64 {
	t.Helper()
	n, err := r.data.CountDocuments(t.Context(), append(scope(busv1.Envelope{Cluster: cluster, Inventory: inv}), legacyID...))
	if err != nil {
		t.Fatalf("count documents of the earlier layout: %v", err)
	}
	return n
}

func TestMigrationFromTheIdentityDocumentID(t *testing.T) {
	srv := testenv.StartMongo(t)
	other := busv1.NamespacedName{Namespace: "team-b", Name: "db"}
	a, b, c := podRow("a", map[string]any{"v": 1.0}), podRow("b", nil), podRow("c", map[string]any{"labels": map[string]any{"k.x": "v"}})
	webV1, dbV1 := envelope(t, "x", inv, 1, a, b), envelope(t, "x", other, 4, c)

	t.Run("each inventory is converted by its next write and read the same meanwhile", func(t *testing.T) {
		db := freshDatabase()
		r := newReader(t, srv.URI, db, "rows")
		legacy(t, r, webV1, false)
		legacy(t, r, dbV1, false)
		s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
		ctx := t.Context()
		if err := s.Check(ctx); err != nil {
			t.Fatalf("check: %v", err)
		}
		if got := indexes(t, r)[IdentityIndex]; !cmp.Equal(got, index{Unique: true, Fields: identityFields}) {
			t.Errorf("index %s = %+v after provisioning, want unique on the identity fields", IdentityIndex, got)
		}
		expect(t, r, "x", webV1)
		expect(t, r, "x", dbV1)

		// The runtime hands over a delta on the recorded base: the state
		// has no layout, so the sink loads the snapshot and converts.
		a2 := podRow("a", map[string]any{"v": 2.0})
		webV2 := withDelta(envelope(t, "x", inv, 2, a2, b), webV1, []busv1.Row{a2})
		header := webV2
		header.Envelope.Items = nil
		header.Load = func(context.Context) (busv1.Envelope, error) { return webV2.Envelope, nil }
		if err := s.WriteDelta(ctx, header); err != nil {
			t.Fatalf("write delta: %v", err)
		}
		expect(t, r, "x", webV2)
		if n := legacyCount(t, r, "x", inv); n != 0 {
			t.Errorf("%d documents of the earlier layout left in the written inventory", n)
		}
		if n := legacyCount(t, r, "x", other); n != 1 {
			t.Errorf("%d documents of the earlier layout in the other inventory, want its 1 until its own write", n)
		}
		expect(t, r, "x", dbV1)

		// A re-delivery of the snapshot the state records converts too.
		if err := s.Write(ctx, dbV1); err != nil {
			t.Fatalf("write the recorded snapshot again: %v", err)
		}
		expect(t, r, "x", dbV1)
		if n := legacyCount(t, r, "x", other); n != 0 {
			t.Errorf("%d documents of the earlier layout left after the re-delivery", n)
		}

		// Converted, the inventory takes deltas again.
		webV3 := withDelta(envelope(t, "x", inv, 3, a2, b, c), webV2, []busv1.Row{c})
		header = webV3
		header.Envelope.Items = nil
		header.Load = func(context.Context) (busv1.Envelope, error) {
			return busv1.Envelope{}, errors.New("the delta applies: the snapshot must not be loaded")
		}
		if err := s.WriteDelta(ctx, header); err != nil {
			t.Fatalf("write delta on the converted inventory: %v", err)
		}
		expect(t, r, "x", webV3)
	})

	t.Run("deleting an inventory not yet converted deletes its documents", func(t *testing.T) {
		db := freshDatabase()
		r := newReader(t, srv.URI, db, "rows")
		legacy(t, r, webV1, false)
		s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
		del := envelope(t, "x", inv, 2)
		del.Deleted = true
		if err := s.Write(t.Context(), del); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if got, found, err := r.Read(t.Context(), "x", inv); err != nil || found {
			t.Fatalf("after the deletion read %v, found %v, %v; want nothing", got, found, err)
		}
	})

	t.Run("the identity index waits for the documents that keep it from being built", func(t *testing.T) {
		db := freshDatabase()
		r := newReader(t, srv.URI, db, "rows")
		legacy(t, r, webV1, true)
		s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
		if err := s.Check(t.Context()); err != nil {
			t.Fatalf("check: %v", err)
		}
		if got, ok := indexes(t, r)[IdentityIndex]; ok {
			t.Fatalf("index %s = %+v while the documents of the earlier layout collide in it, want none", IdentityIndex, got)
		}
		if err := s.Write(t.Context(), webV1); err != nil {
			t.Fatalf("write: %v", err)
		}
		expect(t, r, "x", webV1)
		if got := indexes(t, r)[IdentityIndex]; !cmp.Equal(got, index{Unique: true, Fields: identityFields}) {
			t.Errorf("index %s = %+v after the conversion, want unique on the identity fields", IdentityIndex, got)
		}
	})

	t.Run("existing mode names a unique index of the earlier layout as a permanent error", func(t *testing.T) {
		db := freshDatabase()
		r := newReader(t, srv.URI, db, "rows")
		legacy(t, r, webV1, false)
		s, err := testBackend().New(t.Context(), sinkConfig(t, "x", db, "rows", v1alpha1.ProvisionExisting), secrets(srv.URI))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = s.Close(context.Background()) }()
		err = s.Write(t.Context(), envelope(t, "x", inv, 2, a))
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "unique index "+IdentityIndex) {
			t.Fatalf("write returned %v, want a permanent error naming the index", err)
		}
		if err := r.data.Indexes().DropOne(t.Context(), IdentityIndex); err != nil {
			t.Fatal(err)
		}
		// What the documentation says to do: drop it; then the next write
		// converts the inventory.
		want := envelope(t, "x", inv, 2, a)
		if err := s.Write(t.Context(), want); err != nil {
			t.Fatalf("write after dropping the index: %v", err)
		}
		expect(t, r, "x", want)
		if n := legacyCount(t, r, "x", inv); n != 0 {
			t.Errorf("%d documents of the earlier layout left", n)
		}
	})
}
