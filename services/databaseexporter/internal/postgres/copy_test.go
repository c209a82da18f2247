package postgres_test

import (
	"context"
	"strings"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// TestColumnsOfOtherTypesInTablesMadeByHand writes into tables an
// administrator made (mode existing) with other column types than the
// contract's: what COPY's binary format can carry is written, a first
// export and a re-export alike; what it cannot is a permanent error naming
// the column.
func TestColumnsOfOtherTypesInTablesMadeByHand(t *testing.T) {
	for _, c := range []struct {
		name    string
		types   map[string]string // column definition of the contract -> the table's
		wantErr string
	}{
		{"varchar, numeric and timestamp columns are written", map[string]string{
			"kind text":               "kind varchar(40)",
			"resource_name text":      "resource_name character varying",
			"checksum text":           "checksum varchar(100)",
			"revision bigint":         "revision numeric",
			"exported_at timestamptz": "exported_at timestamp",
			"inventory_name text":     "inventory_name varchar(253)",
			"target_namespace text":   "target_namespace varchar(63)",
		}, ""},
		{"a uuid source_uid is refused by name", map[string]string{"source_uid text": "source_uid uuid"}, "column source_uid has type uuid, want text"},
		{"json attributes are refused", map[string]string{"attributes jsonb": "attributes json"}, "column attributes has type json, want jsonb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ddl := contractDDL()
			for from, to := range c.types {
				if !strings.Contains(ddl[0], from) {
					t.Fatalf("the contract's DDL has no %q", from)
				}
				ddl[0] = strings.Replace(ddl[0], from, to, 1)
			}
			dsn := newDatabase(t)
			exec(t, connect(t, dsn), ddl...)
			k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionExisting))
			r := newReader(t, dsn, k)
			first := snap(t, "c", web, 1, row("a", 1), row("b", 1), row("c", 1))
			err := k.Write(context.Background(), first)
			if c.wantErr != "" {
				if !sink.IsPermanent(err) || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("write returned %v, want a permanent error saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("first export: %v", err)
			}
			if d := diff(want(first), r.read(t, "c", web)); d != "" {
				t.Fatalf("first export (-want +got):\n%s", d)
			}
			second := snap(t, "c", web, 2, row("b", 2), row("c", 1), row("d", 2))
			write(t, k, second)
			if d := diff(want(second), r.read(t, "c", web)); d != "" {
				t.Fatalf("re-export (-want +got):\n%s", d)
			}
		})
	}
}
