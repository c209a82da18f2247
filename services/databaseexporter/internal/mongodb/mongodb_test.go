package mongodb

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.mongodb.org/mongo-driver/v2/bson"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
)

var inv = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

func TestConformance(t *testing.T) {
	srv := testenv.StartMongo(t)
	sinktest.Run(t, sinktest.Factory{
		New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
			db := freshDatabase()
			return newSink(t, testBackend(), srv.URI, sinktest.Cluster, db, "rows"), newReader(t, srv.URI, db, "rows")
		},
		// FerretDB (SQLite handler) checks no password: it accepts any
		// credentials over PLAIN. It does refuse the SCRAM handshake the
		// driver starts for a URI with credentials, answering
		// AuthenticationFailed (code 18), which is what a real server
		// answers to a wrong password; TestClassify covers the codes.
		BadCredentials: func(t *testing.T) sink.Sink {
			uri := strings.Replace(srv.URI, "mongodb://", "mongodb://kollect:wrong-password@", 1)
			return newSink(t, testBackend(), uri, sinktest.Cluster, freshDatabase(), "rows")
		},
	})
}

func TestClustersShareACollection(t *testing.T) {
	srv := testenv.StartMongo(t)
	db := freshDatabase()
	east := newSink(t, testBackend(), srv.URI, "east", db, "rows")
	west := newSink(t, testBackend(), srv.URI, "west", db, "rows")
	r := newReader(t, srv.URI, db, "rows")
	ctx := t.Context()

	a := podRow("a", map[string]any{"v": 1.0})
	eastSnap, westSnap := envelope(t, "east", inv, 3, a), envelope(t, "west", inv, 1, a, podRow("b", nil))
	for _, w := range []struct {
		s    *Sink
		snap sink.Snapshot
	}{{east, eastSnap}, {west, westSnap}, {east, envelope(t, "east", inv, 4)}} {
		if err := w.s.Write(ctx, w.snap); err != nil {
			t.Fatalf("write %s revision %d: %v", w.snap.Envelope.Cluster, w.snap.Envelope.Revision, err)
		}
	}
	t.Run("emptying one cluster's inventory leaves the other cluster's rows", func(t *testing.T) {
		expect(t, r, "west", westSnap)
		expect(t, r, "east", envelope(t, "east", inv, 4))
	})
	t.Run("deleting one cluster's inventory leaves the other cluster's rows", func(t *testing.T) {
		del := envelope(t, "east", inv, 5)
		del.Deleted = true
		if err := east.Write(ctx, del); err != nil {
			t.Fatalf("delete: %v", err)
		}
		expect(t, r, "west", westSnap)
	})
}

// expect fails unless r holds exactly want for cluster.
func expect(t *testing.T, r reader, cluster string, want sink.Snapshot) {
	t.Helper()
	got, found, err := r.Read(context.Background(), cluster, want.Envelope.Inventory)
	if err != nil || !found {
		t.Fatalf("read %s: found %v, %v", cluster, found, err)
	}
	w := sinktest.Projection{Revision: want.Envelope.Revision, Checksum: want.Envelope.Checksum, Rows: want.Envelope.Items}
	if d := cmp.Diff(w, got, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("%s projection (-want +got):\n%s", cluster, d)
	}
}

var errCrash = errors.New("crash between the data write and the state record")

func TestInterruptedWriteIsRepaired(t *testing.T) {
	srv := testenv.StartMongo(t)
	a, b, c := podRow("a", map[string]any{"v": 1.0}), podRow("b", map[string]any{"v": 1.0}), podRow("c", nil)
	a2 := podRow("a", map[string]any{"v": 2.0})
	tests := []struct {
		name        string
		interrupted sink.Snapshot
		next        sink.Snapshot
	}{
		{"re-exporting the interrupted snapshot writes it whole",
			envelope(t, "x", inv, 2, a2, c), envelope(t, "x", inv, 2, a2, c)},
		{"a newer snapshot with the rows recorded before the crash rewrites them",
			envelope(t, "x", inv, 2, a2, c), envelope(t, "x", inv, 3, a, b)},
		{"a delta on the recorded base is applied as a full write",
			envelope(t, "x", inv, 2, a2, c), withDelta(envelope(t, "x", inv, 3, a, c), envelope(t, "x", inv, 1, a, b), []busv1.Row{c}, b)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := freshDatabase()
			s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
			r := newReader(t, srv.URI, db, "rows")
			ctx := t.Context()
			first := envelope(t, "x", inv, 1, a, b)
			if err := s.Write(ctx, first); err != nil {
				t.Fatalf("first write: %v", err)
			}
			s.afterData = func() error { return errCrash }
			if err := s.Write(ctx, tt.interrupted); !errors.Is(err, errCrash) {
				t.Fatalf("interrupted write returned %v, want the crash", err)
			}
			s.afterData = nil
			got, _, _ := r.Read(ctx, "x", inv)
			if got.Revision != 1 {
				t.Fatalf("after the crash the state holds revision %d, want 1", got.Revision)
			}
			var err error
			if tt.next.Delta != nil {
				// As the runtime hands a delta over: the header, the
				// items only through Load.
				header := tt.next
				header.Envelope.Items = nil
				header.Load = func(context.Context) (busv1.Envelope, error) { return tt.next.Envelope, nil }
				err = s.WriteDelta(ctx, header)
			} else {
				err = s.Write(ctx, tt.next)
			}
			if err != nil {
				t.Fatalf("next write: %v", err)
			}
			expect(t, r, "x", tt.next)
		})
	}
}

// withDelta sets s's delta from base.
func withDelta(s, base sink.Snapshot, upserts []busv1.Row, deleted ...busv1.Row) sink.Snapshot {
	d := &busv1.Delta{BaseRevision: base.Envelope.Revision, BaseChecksum: base.Envelope.Checksum, Upserts: upserts}
	for _, r := range deleted {
		d.Deletes = append(d.Deletes, r.Key())
	}
	s.Delta = d
	return s
}

func TestAttributesRoundTrip(t *testing.T) {
	srv := testenv.StartMongo(t)
	db := freshDatabase()
	s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
	r := newReader(t, srv.URI, db, "rows")
	attrs := map[string]any{
		"quotes":     `say "hi" and 'bye'`,
		"backslash":  `C:\path\to\file \\ \n literal`,
		"newlines":   "line one\nline two\r\n\ttabbed",
		"unicode":    "zürich – 東京 \u2028",
		"nested":     map[string]any{"list": []any{"a\"b", 1.5, true, nil, map[string]any{"k": "v"}}},
		"labels":     map[string]any{"app.kubernetes.io/name": "web", "$ref": "#/x", "100%": "full", "a%2Eb": "literal escape", "nul\x00key": "x"},
		"empty":      map[string]any{},
		"key.dotted": "top-level dotted attribute",
	}
	want := envelope(t, "x", inv, 1, podRow("a", attrs), podRow(`b"\`+"\n", map[string]any{"v": "x"}))
	if err := s.Write(t.Context(), want); err != nil {
		t.Fatalf("write: %v", err)
	}
	expect(t, r, "x", want)
	t.Run("dotted keys are stored escaped so that dot notation reaches them", func(t *testing.T) {
		n, err := r.data.CountDocuments(t.Context(), bson.D{{Key: "row.attributes.labels.app%2Ekubernetes%2Eio/name", Value: "web"}})
		if err != nil || n != 1 {
			t.Fatalf("count by escaped key = %d, %v; want 1", n, err)
		}
	})
}

func TestDefaultEgressPolicyRefusesLoopback(t *testing.T) {
	srv := testenv.StartMongo(t)
	s := newSink(t, Backend{ServerSelectionTimeout: 2 * time.Second}, srv.URI, "x", freshDatabase(), "rows")
	err := s.Write(t.Context(), envelope(t, "x", inv, 1, podRow("a", nil)))
	if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("write to a loopback server with the default policy returned %v, want a permanent error wrapping egress.ErrDenied", err)
	}
	if err := s.Check(t.Context()); !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("check returned %v, want a permanent error wrapping egress.ErrDenied", err)
	}
}

func TestProvisioning(t *testing.T) {
	srv := testenv.StartMongo(t)
	ctx := t.Context()
	t.Run("ensure mode creates a unique index on the identity fields", func(t *testing.T) {
		db := freshDatabase()
		s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
		if err := s.Check(ctx); err != nil {
			t.Fatalf("check: %v", err)
		}
		got := indexes(t, newReader(t, srv.URI, db, "rows"))
		want := map[string]index{"_id_": {Fields: []string{"_id"}}, IdentityIndex: {Unique: true, Fields: identityFields}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("indexes (-want +got):\n%s", d)
		}
	})
	t.Run("existing mode names the missing collection as a permanent error", func(t *testing.T) {
		s, err := testBackend().New(ctx, sinkConfig(t, "x", freshDatabase(), "absent", v1alpha1.ProvisionExisting), secrets(srv.URI))
		if err != nil {
			t.Fatal(err)
		}
		sinktest.Close(t, s)
		err = s.Write(ctx, envelope(t, "x", inv, 1))
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), ".absent does not exist") {
			t.Fatalf("write returned %v, want a permanent error naming the collection", err)
		}
	})
	t.Run("existing mode writes into collections that exist", func(t *testing.T) {
		db := freshDatabase()
		r := newReader(t, srv.URI, db, "rows")
		for _, c := range []string{"rows", "rows_state"} {
			if err := r.data.Database().CreateCollection(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		s, err := testBackend().New(ctx, sinkConfig(t, "x", db, "rows", v1alpha1.ProvisionExisting), secrets(srv.URI))
		if err != nil {
			t.Fatal(err)
		}
		sinktest.Close(t, s)
		want := envelope(t, "x", inv, 1, podRow("a", nil))
		if err := s.Write(ctx, want); err != nil {
			t.Fatalf("write: %v", err)
		}
		expect(t, r, "x", want)
	})
}
