//go:build bigquery_emulator

package bigquery

// Run with `make tools-bigquery` once, then
// `go test -tags bigquery_emulator ./services/databaseexporter/internal/bigquery/`.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

const emulatorProject = "kollect-test"

// startEmulator runs the bigquery-emulator built by `make tools-bigquery`
// and returns its endpoint; the test's cleanup stops it.
func startEmulator(t *testing.T) string {
	t.Helper()
	bin, err := testenv.Tool("bin/bigquery-emulator")
	if err != nil {
		t.Fatalf("%v (run `make tools-bigquery`)", err)
	}
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	grpc, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(t.TempDir(), "bigquery-emulator.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--project="+emulatorProject, "--host=127.0.0.1", "--port="+strconv.Itoa(port),
		"--grpc-port="+strconv.Itoa(grpc), "--log-level=warn")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start bigquery-emulator: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("--- bigquery-emulator log ---\n%s", b)
		}
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	testenv.Eventually(t, 30*time.Second, "bigquery-emulator listening on "+addr, func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	}, testenv.Every(50*time.Millisecond))
	return "http://" + addr
}

var dsSeq atomic.Int64

// emulatorSink creates a sink on a fresh dataset of the emulator.
func emulatorSink(t *testing.T, endpoint string, b Backend) (sink.Sink, string) {
	t.Helper()
	dataset := fmt.Sprintf("kollect_%d", dsSeq.Add(1))
	return newEmulatorSink(t, endpoint, b, v1alpha1.BigQuerySink{Dataset: dataset, Table: "rows"}), dataset
}

// newEmulatorSink creates a sink writing to bq (its project the
// emulator's) through b.
func newEmulatorSink(t *testing.T, endpoint string, b Backend, bq v1alpha1.BigQuerySink) sink.Sink {
	t.Helper()
	bq.Project = emulatorProject
	spec, _ := json.Marshal(v1alpha1.KollectDatabaseSinkSpec{Type: v1alpha1.DatabaseBigQuery,
		SinkCommon: v1alpha1.SinkCommon{Cluster: sinktest.Cluster}, BigQuery: &bq})
	b.Egress, b.Endpoint = egress.Policy{AllowPrivate: true}, endpoint
	s, err := b.New(t.Context(), busv1.SinkConfig{Type: "bigquery", Namespace: "kollect-system", Name: "rows", Spec: spec}, backend.MapCredentials{})
	if err != nil {
		t.Fatalf("new sink: %v", err)
	}
	return s
}

// reader reads what the emulator stores through its own client.
type reader struct {
	client *bigquery.Client
	data   tableRef
}

func newReader(t *testing.T, endpoint, dataset string) reader {
	c, err := bigquery.NewClient(context.Background(), emulatorProject, option.WithEndpoint(endpoint), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return reader{client: c, data: tableRef{Project: emulatorProject, Dataset: dataset, Table: "rows"}}
}

// Read returns the projection of (cluster, inv).
func (r reader) Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	var p sinktest.Projection
	env := busv1.Envelope{Cluster: cluster, Inventory: inv}
	found := false
	st := readStateStatement(r.data, env)
	var s state
	if err := r.query(ctx, st, func(it *bigquery.RowIterator) error { return it.Next(&s) }); err == nil {
		found, p.Revision, p.Checksum = true, uint64(s.Revision), s.Checksum
	} else if !errors.Is(err, iterator.Done) {
		return p, false, err
	}
	rows := withParams([]statement{{SQL: "SELECT target_namespace, target_name, source_uid, resource_namespace, resource_name, `group`, version, kind, TO_JSON_STRING(attributes) AS attributes FROM " +
		r.data.sql() + " WHERE " + scopeSQL}}, env)[0]
	err := r.query(ctx, rows, func(it *bigquery.RowIterator) error {
		for {
			var vals struct {
				TargetNamespace   string `bigquery:"target_namespace"`
				TargetName        string `bigquery:"target_name"`
				SourceUID         string `bigquery:"source_uid"`
				ResourceNamespace string `bigquery:"resource_namespace"`
				ResourceName      string `bigquery:"resource_name"`
				Group             string `bigquery:"group"`
				Version           string `bigquery:"version"`
				Kind              string `bigquery:"kind"`
				Attributes        string `bigquery:"attributes"`
			}
			if err := it.Next(&vals); err != nil {
				return err
			}
			sr := stagedRow(vals)
			row := busv1.Row{TargetNamespace: sr.TargetNamespace, TargetName: sr.TargetName, UID: sr.SourceUID,
				Namespace: sr.ResourceNamespace, Name: sr.ResourceName, Group: sr.Group, Version: sr.Version, Kind: sr.Kind}
			if err := json.Unmarshal([]byte(sr.Attributes), &row.Attributes); err != nil {
				return fmt.Errorf("decode attributes %q: %w", sr.Attributes, err)
			}
			p.Rows = append(p.Rows, row)
		}
	})
	if err != nil && !errors.Is(err, iterator.Done) {
		return p, false, err
	}
	slices.SortFunc(p.Rows, busv1.CompareRows)
	return p, found || len(p.Rows) > 0, nil
}

func (r reader) query(ctx context.Context, st statement, read func(*bigquery.RowIterator) error) error {
	q := r.client.Query(st.SQL)
	q.Parameters = st.Params
	it, err := q.Read(ctx)
	if err != nil {
		return err
	}
	return read(it)
}

func TestEmulatorConformance(t *testing.T) {
	endpoint := startEmulator(t)
	for name, b := range map[string]Backend{
		"in one transaction":     {},
		"statement by statement": {NoTransactions: true},
	} {
		t.Run(name, func(t *testing.T) {
			sinktest.Run(t, sinktest.Factory{
				New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
					s, dataset := emulatorSink(t, endpoint, b)
					return s, newReader(t, endpoint, dataset)
				},
				// The emulator accepts any request: it has no credentials to refuse.
				BadCredentials: nil,
			})
		})
	}
}

func TestEmulatorDriftIsDetectedAndRepaired(t *testing.T) {
	endpoint := startEmulator(t)
	s, dataset := emulatorSink(t, endpoint, Backend{NoTransactions: true})
	r := newReader(t, endpoint, dataset)
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	rows := []busv1.Row{
		{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "a", UID: "a", Version: "v1", Kind: "Pod"},
		{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "b", UID: "b", Version: "v1", Kind: "Pod"},
	}
	env, err := snapshot.Envelope(inv, 1, 1, rows)
	if err != nil {
		t.Fatal(err)
	}
	snap := sink.Snapshot{Envelope: env.Stamp(sinktest.Cluster, time.Now())}
	if err := s.Write(t.Context(), snap); err != nil {
		t.Fatalf("write: %v", err)
	}
	dc := s.(sink.DriftChecker)
	drift := func() string {
		t.Helper()
		reason, err := dc.Drift(t.Context(), snap)
		if err != nil {
			t.Fatalf("drift: %v", err)
		}
		return reason
	}
	if got := drift(); got != "" {
		t.Fatalf("drift %q before any damage, want none", got)
	}
	del := withParams([]statement{{SQL: "DELETE FROM " + r.data.sql() + " WHERE " + scopeSQL + " AND source_uid = 'a'"}}, snap.Envelope)[0]
	if err := r.query(t.Context(), del, func(*bigquery.RowIterator) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := drift(); got != "1 rows, want 2" {
		t.Fatalf("drift %q, want 1 rows, want 2", got)
	}
	snap.Repair = true
	if err := s.Write(t.Context(), snap); err != nil {
		t.Fatalf("repair: %v", err)
	}
	if got := drift(); got != "" {
		t.Fatalf("drift %q after the repair, want none", got)
	}
	got, _, err := r.Read(t.Context(), sinktest.Cluster, inv)
	if err != nil || len(got.Rows) != 2 {
		t.Fatalf("after the repair: %d rows (%v), want 2", len(got.Rows), err)
	}
}
