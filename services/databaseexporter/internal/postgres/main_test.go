package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

// server is the PostgreSQL cluster the package's tests share; each test
// isolates itself in its own database. No test runs in parallel, since the
// outage test stops the server.
var server *testenv.Postgres

func TestMain(m *testing.M) {
	pg, err := testenv.NewPostgres("")
	if err != nil {
		fmt.Fprintln(os.Stderr, "start PostgreSQL:", err)
		os.Exit(1)
	}
	server = pg
	code := m.Run()
	if err := pg.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop PostgreSQL:", err)
	}
	os.Exit(code)
}

var dbSeq atomic.Int64

// newDatabase creates a database for the test and returns its DSN.
func newDatabase(t testing.TB) string {
	t.Helper()
	name := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_"))
	if len(name) > 40 {
		name = name[:40]
	}
	return server.CreateDatabase(t, fmt.Sprintf("%s_%d", name, dbSeq.Add(1)))
}

// connect opens the test's own connection to dsn, to read what the sink
// stored and to prepare or disturb the database.
func connect(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// exec runs statements on c, failing the test on error.
func exec(t testing.TB, c *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// spec returns a sink spec writing to table in schema of the Secret pg.
func spec(schema, table string, mode v1alpha1.ProvisioningMode) v1alpha1.KollectDatabaseSinkSpec {
	return v1alpha1.KollectDatabaseSinkSpec{
		Type:       v1alpha1.DatabasePostgres,
		SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: "pg"}, Provisioning: &v1alpha1.Provisioning{Mode: mode}},
		Postgres:   &v1alpha1.PostgresSink{Schema: schema, Table: table},
	}
}

// open opens a sink of spec whose Secret pg holds dsn, with the private
// address policy the loopback server needs; the test closes it.
func open(t testing.TB, dsn string, s v1alpha1.KollectDatabaseSinkSpec) *postgres.Sink {
	t.Helper()
	k, err := openWith(postgres.Backend{Egress: egress.Policy{AllowPrivate: true}}, dsn, s)
	if err != nil {
		t.Fatalf("open sink: %v", err)
	}
	t.Cleanup(func() { _ = k.Close(context.Background()) })
	return k
}

func openWith(b postgres.Backend, dsn string, s v1alpha1.KollectDatabaseSinkSpec) (*postgres.Sink, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	creds := backend.MapCredentials{{Namespace: "team-a", Name: "pg"}: {"dsn": []byte(dsn)}}
	return b.Open(context.Background(), busv1.SinkConfig{Family: busv1.FamilyDatabase, Type: "postgres",
		Namespace: "team-a", Name: "db", Cluster: "default", Spec: raw}, creds)
}

// reader reads the projection back from the tables with its own
// connection: what SQL consumers see.
type reader struct {
	conn         *pgx.Conn
	rows, states string
}

func newReader(t testing.TB, dsn string, k *postgres.Sink) *reader {
	return &reader{conn: connect(t, dsn), rows: k.Table(), states: k.StateTable()}
}

// Read implements sinktest.Reader.
func (r *reader) Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	var p sinktest.Projection
	var rev int64
	err := r.conn.QueryRow(ctx, `SELECT revision, checksum FROM `+r.states+`
WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, cluster, inv.Namespace, inv.Name).Scan(&rev, &p.Checksum)
	found := err == nil
	if err != nil && err != pgx.ErrNoRows {
		return p, false, err
	}
	p.Revision = uint64(rev)
	rows, err := r.conn.Query(ctx, `SELECT target_namespace, target_name, resource_namespace, resource_name, source_uid,
  "group", version, kind, attributes::text FROM `+r.rows+`
WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, cluster, inv.Namespace, inv.Name)
	if err != nil {
		return p, false, err
	}
	var row busv1.Row
	var attrs string
	_, err = pgx.ForEachRow(rows, []any{&row.TargetNamespace, &row.TargetName, &row.Namespace, &row.Name, &row.UID,
		&row.Group, &row.Version, &row.Kind, &attrs}, func() error {
		r := row
		r.Attributes = nil
		if err := json.Unmarshal([]byte(attrs), &r.Attributes); err != nil {
			return err
		}
		p.Rows = append(p.Rows, r)
		return nil
	})
	if err != nil {
		return p, false, err
	}
	slices.SortFunc(p.Rows, busv1.CompareRows)
	return p, found || len(p.Rows) > 0, nil
}

// readRows reads cluster's projection of inv, failing the test on error.
func (r *reader) read(t testing.TB, cluster string, inv busv1.NamespacedName) sinktest.Projection {
	t.Helper()
	p, _, err := r.Read(context.Background(), cluster, inv)
	if err != nil {
		t.Fatalf("read %s of %s: %v", inv, cluster, err)
	}
	return p
}

var web = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

// row returns a row named uid with attribute v.
func row(uid string, v float64) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "pod-" + uid,
		UID: uid, Version: "v1", Kind: "Pod", Attributes: map[string]any{"v": v}}
}

// snap returns the snapshot of rows of inv at revision, stamped for cluster.
func snap(t testing.TB, cluster string, inv busv1.NamespacedName, revision uint64, rows ...busv1.Row) sink.Snapshot {
	t.Helper()
	env, err := snapshot.Envelope(inv, revision, 1, rows)
	if err != nil {
		t.Fatalf("build envelope: %v", err)
	}
	return sink.Snapshot{Envelope: env.Stamp(cluster, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC).Add(time.Duration(revision)*time.Second))}
}

// want is the projection of s.
func want(s sink.Snapshot) sinktest.Projection {
	return sinktest.Projection{Revision: s.Envelope.Revision, Checksum: s.Envelope.Checksum, Rows: s.Envelope.Items}
}

// write writes s, failing the test on error.
func write(t testing.TB, k sink.Sink, s sink.Snapshot) {
	t.Helper()
	if err := k.Write(context.Background(), s); err != nil {
		t.Fatalf("write revision %d of %s: %v", s.Envelope.Revision, s.Envelope.Cluster, err)
	}
}
