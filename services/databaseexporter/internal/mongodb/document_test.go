package mongodb

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

func TestDocumentID(t *testing.T) {
	id := func(cluster, invNS, invName, tns, tn, uid string) string {
		env := busv1.Envelope{Cluster: cluster, Inventory: busv1.NamespacedName{Namespace: invNS, Name: invName}}
		return documentID(env, busv1.RowKey{TargetNamespace: tns, TargetName: tn, UID: uid})
	}
	t.Run("the identity fields are joined by slashes", func(t *testing.T) {
		if got, want := id("prod", "team-a", "web", "team-a", "pods", "0b6c"), "prod/team-a/web/team-a/pods/0b6c"; got != want {
			t.Errorf("id = %q, want %q", got, want)
		}
		if got, want := id("prod", "", "all", "", "nodes", "u"), "prod//all//nodes/u"; got != want {
			t.Errorf("cluster-scoped id = %q, want %q", got, want)
		}
	})
	t.Run("slashes and percent signs inside a field are escaped", func(t *testing.T) {
		if got, want := id("a/b", "n%s", "x", "", "t", "u/%"), "a%2Fb/n%25s/x//t/u%2F%25"; got != want {
			t.Errorf("id = %q, want %q", got, want)
		}
	})
	t.Run("distinct identities never share an id", func(t *testing.T) {
		ids := map[string][6]string{}
		for _, f := range [][6]string{
			{"a/b", "c", "d", "e", "f", "g"}, {"a", "b/c", "d", "e", "f", "g"}, {"a", "b", "c/d", "e", "f", "g"},
			{"a", "b", "c", "d/e", "f", "g"}, {"a", "b", "c", "d", "e/f", "g"}, {"a", "b", "c", "d", "e", "f/g"},
			{"a%2Fb", "c", "d", "e", "f", "g"}, {"a%2", "Fb", "d", "e", "f", "g"}, {"", "", "", "", "", ""}, {"", "", "", "", "", "/"},
		} {
			got := id(f[0], f[1], f[2], f[3], f[4], f[5])
			if prev, ok := ids[got]; ok {
				t.Errorf("%q and %q share the id %q", prev, f, got)
			}
			ids[got] = f
		}
	})
}

func TestDocumentLayout(t *testing.T) {
	srv := testenv.StartMongo(t)
	db := freshDatabase()
	s := newSink(t, testBackend(), srv.URI, "prod", db, "rows")
	r := newReader(t, srv.URI, db, "rows")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	snap := envelope(t, "prod", inv, 7, podRow("web-0", map[string]any{"image": "nginx:1.27"}))
	snap.Envelope.ExportedAt = at
	if err := s.Write(t.Context(), snap); err != nil {
		t.Fatalf("write: %v", err)
	}
	var got bson.M
	if err := r.data.FindOne(t.Context(), bson.D{}).Decode(&got); err != nil {
		t.Fatalf("read the document: %v", err)
	}
	want := bson.M{
		"_id": "prod/team-a/web/team-a/pods/uid-web-0", "cluster": "prod", "inventoryNamespace": "team-a", "inventoryName": "web",
		"targetNamespace": "team-a", "targetName": "pods", "uid": "uid-web-0",
		"revision": int64(7), "checksum": snap.Envelope.Checksum, "exportedAt": bson.NewDateTimeFromTime(at),
		"row": bson.D{{Key: "targetNamespace", Value: "team-a"}, {Key: "targetName", Value: "pods"}, {Key: "namespace", Value: "team-a"},
			{Key: "name", Value: "web-0"}, {Key: "uid", Value: "uid-web-0"}, {Key: "group", Value: ""}, {Key: "version", Value: "v1"},
			{Key: "kind", Value: "Pod"}, {Key: "attributes", Value: bson.D{{Key: "image", Value: "nginx:1.27"}}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("document (-want +got):\n%s", d)
	}
	var st bson.M
	if err := r.state.FindOne(t.Context(), bson.D{}).Decode(&st); err != nil {
		t.Fatalf("read the state: %v", err)
	}
	if st["layout"] != layoutStringID {
		t.Errorf("state %v: want layout %d", st, layoutStringID)
	}
}

func TestFullWriteOnlyWritesChangedRows(t *testing.T) {
	srv := testenv.StartMongo(t)
	db := freshDatabase()
	s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
	r := newReader(t, srv.URI, db, "rows")
	ctx := t.Context()
	attrs := map[string]any{"image": "nginx:1.27", "n": 1.0, "on": true, "none": nil, "list": []any{"a", 2.0, map[string]any{}},
		"labels": map[string]any{"app.kubernetes.io/name": "web", "$x": "y"}, "empty": map[string]any{}}
	a, b, c := podRow("a", attrs), podRow("b", map[string]any{"v": 1.0}), podRow("c", nil)
	if err := s.Write(ctx, envelope(t, "x", inv, 1, a, b, c)); err != nil {
		t.Fatalf("first write: %v", err)
	}
	b2, d := podRow("b", map[string]any{"v": 2.0}), podRow("d", map[string]any{})
	want := envelope(t, "x", inv, 2, a, b2, d)
	if err := s.Write(ctx, want); err != nil {
		t.Fatalf("second write: %v", err)
	}
	expect(t, r, "x", want)
	got := revisions(t, r)
	if d := cmp.Diff(map[string]int64{"a": 1, "b": 2, "d": 2}, got); d != "" {
		t.Errorf("revision of each document (-want +got): the unchanged row must keep the revision that wrote it\n%s", d)
	}
	t.Run("more changed rows than are replaced one by one are deleted and inserted again", func(t *testing.T) {
		s.batch, s.deleteChunk = 4, 5
		rows := []busv1.Row{a}
		wantRevisions := map[string]int64{"a": 1}
		for i := range perDocumentLimit + 3 {
			name := fmt.Sprintf("p%02d", i)
			rows = append(rows, podRow(name, map[string]any{"v": float64(i)}))
			wantRevisions[name] = 3
		}
		want := envelope(t, "x", inv, 3, rows...)
		if err := s.Write(ctx, want); err != nil {
			t.Fatalf("write: %v", err)
		}
		expect(t, r, "x", want)
		if d := cmp.Diff(wantRevisions, revisions(t, r)); d != "" {
			t.Errorf("revision of each document (-want +got):\n%s", d)
		}
		for i := range rows[1:] {
			rows[1+i] = podRow(rows[1+i].Name, map[string]any{"v": "changed"})
			wantRevisions[rows[1+i].Name] = 4
		}
		want = envelope(t, "x", inv, 4, rows[:len(rows)-1]...)
		delete(wantRevisions, rows[len(rows)-1].Name)
		if err := s.Write(ctx, want); err != nil {
			t.Fatalf("write: %v", err)
		}
		expect(t, r, "x", want)
		if d := cmp.Diff(wantRevisions, revisions(t, r)); d != "" {
			t.Errorf("revision of each document (-want +got):\n%s", d)
		}
	})
}

// revisions returns the revision of each document of r by row name.
func revisions(t *testing.T, r reader) map[string]int64 {
	t.Helper()
	cur, err := r.data.Find(t.Context(), bson.D{}, options.Find().SetProjection(bson.D{{Key: "revision", Value: 1}, {Key: "row.name", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		Revision int64 `bson:"revision"`
		Row      struct {
			Name string `bson:"name"`
		} `bson:"row"`
	}
	if err := cur.All(t.Context(), &docs); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, d := range docs {
		out[d.Row.Name] = d.Revision
	}
	return out
}

func TestDeltaWritesOnlyTheNamedRows(t *testing.T) {
	srv := testenv.StartMongo(t)
	db := freshDatabase()
	s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
	r := newReader(t, srv.URI, db, "rows")
	ctx := t.Context()
	a, b, c := podRow("a", map[string]any{"v": 1.0}), podRow("b", nil), podRow("c", nil)
	base := envelope(t, "x", inv, 1, a, b)
	if err := s.Write(ctx, base); err != nil {
		t.Fatalf("first write: %v", err)
	}
	a2 := podRow("a", map[string]any{"v": 2.0})
	next := withDelta(envelope(t, "x", inv, 2, a2, c), base, []busv1.Row{a2, c}, b)
	header := next
	header.Envelope.Items = nil
	header.Load = func(context.Context) (busv1.Envelope, error) {
		return busv1.Envelope{}, errors.New("the delta applies: the snapshot must not be loaded")
	}
	if err := s.WriteDelta(ctx, header); err != nil {
		t.Fatalf("write delta: %v", err)
	}
	expect(t, r, "x", next)
	if d := cmp.Diff(map[string]int64{"a": 2, "c": 2}, revisions(t, r)); d != "" {
		t.Errorf("revision of each document (-want +got):\n%s", d)
	}
	t.Run("a delta with more rows than are replaced one by one, in several bulk writes", func(t *testing.T) {
		s.batch = 2
		rows := []busv1.Row{a2}
		var upserts []busv1.Row
		for i := range perDocumentLimit + 2 {
			row := podRow(fmt.Sprintf("p%02d", i), map[string]any{"v": 3.0})
			rows, upserts = append(rows, row), append(upserts, row)
		}
		want := withDelta(envelope(t, "x", inv, 3, rows...), next, upserts, c)
		if err := s.WriteDelta(ctx, want); err != nil {
			t.Fatalf("write delta: %v", err)
		}
		expect(t, r, "x", want)
	})
}

func TestRemoveDeletesByRangesOfIDs(t *testing.T) {
	srv := testenv.StartMongo(t)
	db := freshDatabase()
	s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
	r := newReader(t, srv.URI, db, "rows")
	s.deleteChunk = 2
	other := envelope(t, "x", busv1.NamespacedName{Namespace: "team-b", Name: "web"}, 1, podRow("z", nil))
	for _, snap := range []sink.Snapshot{envelope(t, "x", inv, 1, podRow("a", nil), podRow("b", nil), podRow("c", nil), podRow("d", nil), podRow("e", nil)), other} {
		if err := s.Write(t.Context(), snap); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	del := envelope(t, "x", inv, 2)
	del.Deleted = true
	if err := s.Write(t.Context(), del); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if got, found, err := r.Read(t.Context(), "x", inv); err != nil || found {
		t.Fatalf("after the deletion read %v, found %v, %v; want nothing", got, found, err)
	}
	expect(t, r, "x", other)
}
