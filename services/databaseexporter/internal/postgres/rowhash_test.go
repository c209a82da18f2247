package postgres_test

import (
	"context"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/sink/sinktest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

// TestTheRowsHashAFullWriteComputesIsTheServers writes rows whose text the
// server prints in unusual ways and compares the rows hash the exporter
// added up while copying with the one the server computes over the table
// (what drift checks compare): a difference would be reported as drift
// after every full write.
func TestTheRowsHashAFullWriteComputesIsTheServers(t *testing.T) {
	base := func(uid string, attrs map[string]any) busv1.Row {
		r := row(uid, 1)
		r.Attributes = attrs
		return r
	}
	for _, c := range []struct {
		name     string
		row      busv1.Row
		fallback bool // the exporter leaves the sum to the server
	}{
		{name: "plain attributes", row: base("a", map[string]any{"image": "nginx:1.27", "replicas": 3.0, "ready": true})},
		{name: "keys of different lengths, which jsonb orders by length first",
			row: base("a", map[string]any{"zz": 1.0, "a": 2.0, "bbb": 3.0, "c": map[string]any{"yy": nil, "x": []any{}}})},
		{name: "nested arrays and objects, empty ones included",
			row: base("a", map[string]any{"l": []any{1.0, "two", []any{map[string]any{}}, nil, false}, "o": map[string]any{}})},
		{name: "escapes and control characters",
			row: base("a", map[string]any{"s": "quote \" backslash \\ tab\t nl\n cr\r bs\b ff\f bell\x07 slash / <&>"})},
		{name: "non-ASCII and line separators", row: base("a", map[string]any{"s": "héllo 日本 \u2028 \u2029 😀", "ü": "x"})},
		{name: "fractions and large integers",
			row: base("a", map[string]any{"f": 0.5, "g": -12.25, "i": 123456789012.0, "n": -3.0, "z": 0.0, "small": 0.000001})},
		{name: "text columns that need quotes", row: func() busv1.Row {
			r := base(`a,b`, map[string]any{})
			r.Namespace, r.Name, r.Group, r.Kind = "", `we"ird (name) \ x`, "", "Kind With Space"
			return r
		}()},
		{name: "nil attributes", row: base("a", nil)},
		{name: "an exponent, left to the server", row: base("a", map[string]any{"big": 1e21, "tiny": 1e-7}), fallback: true},
		{name: "a non-ASCII name, left to the server", row: func() busv1.Row {
			r := base("a", map[string]any{})
			r.Name = "naïve"
			return r
		}(), fallback: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := []busv1.Row{c.row, row("other", 2)}
			if _, ok := postgres.ClientRowHash(rows); ok == c.fallback {
				t.Fatalf("the exporter hashed the rows itself: %v, want %v", ok, !c.fallback)
			}
			for _, streaming := range []bool{false, true} {
				checkRowsHash(t, rows, streaming)
			}
		})
	}
}

// checkRowsHash writes rows in a new database, loaded or streamed as
// canonical JSON, and compares what the table holds and the rows hash
// recorded with the server's.
func checkRowsHash(t *testing.T, rows []busv1.Row, streaming bool) {
	t.Helper()
	dsn := newDatabase(t)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	s := snap(t, "default", web, 1, rows...)
	w := s
	if streaming {
		w = sinktest.Streamed(s)
	}
	write(t, k, w)
	if diff := cmp.Diff(want(s), newReader(t, dsn, k).read(t, "default", web), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("streamed %v: projection (-want +got):\n%s", streaming, diff)
	}
	conn := connect(t, dsn)
	var kept, server string
	if err := conn.QueryRow(context.Background(), `SELECT rows_hash::text FROM inventory_state`).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	err := conn.QueryRow(context.Background(), `SELECT coalesce(sum(('x' || left(md5(ROW(t.target_namespace, t.target_name,
  t.source_uid, t.resource_namespace, t.resource_name, t."group", t.version, t.kind, t.attributes)::text), 16))::bit(64)::bigint), 0)::text
FROM inventory t`).Scan(&server)
	if err != nil {
		t.Fatal(err)
	}
	if kept != server {
		var text string
		_ = conn.QueryRow(context.Background(), `SELECT string_agg(ROW(t.target_namespace, t.target_name, t.source_uid,
  t.resource_namespace, t.resource_name, t."group", t.version, t.kind, t.attributes)::text, E'\n') FROM inventory t`).Scan(&text)
		t.Fatalf("streamed %v: recorded rows hash %s, the server's sum is %s; the server's rows:\n%s", streaming, kept, server, strings.TrimSpace(text))
	}
	if reason := drift(t, k, s); reason != "" {
		t.Errorf("drift after the write: %s", reason)
	}
}
