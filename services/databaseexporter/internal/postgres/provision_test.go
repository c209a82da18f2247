package postgres_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// contractDDL creates the tables of docs/sinks/postgres.md in schema
// public, leaving out the columns named in drop.
func contractDDL(drop ...string) []string {
	rows := []string{"cluster text NOT NULL", "inventory_namespace text NOT NULL", "inventory_name text NOT NULL",
		"target_namespace text NOT NULL", "target_name text NOT NULL", "source_uid text NOT NULL",
		"resource_namespace text NOT NULL", "resource_name text NOT NULL", `"group" text NOT NULL`, "version text NOT NULL",
		"kind text NOT NULL", "attributes jsonb NOT NULL", "checksum text NOT NULL", "revision bigint NOT NULL",
		"exported_at timestamptz NOT NULL"}
	var kept []string
	for _, c := range rows {
		name := strings.Trim(strings.Fields(c)[0], `"`)
		if !slices.Contains(drop, name) {
			kept = append(kept, c)
		}
	}
	return []string{
		`CREATE TABLE inventory (` + strings.Join(kept, ", ") + `,
  PRIMARY KEY (cluster, inventory_namespace, inventory_name, target_namespace, target_name, source_uid))`,
		`CREATE TABLE inventory_state (cluster text NOT NULL, inventory_namespace text NOT NULL, inventory_name text NOT NULL,
  revision bigint NOT NULL, checksum text NOT NULL, item_count integer NOT NULL, exported_at timestamptz NOT NULL,
  PRIMARY KEY (cluster, inventory_namespace, inventory_name))`,
	}
}

func TestProvisioningExisting(t *testing.T) {
	for _, c := range []struct {
		name    string
		ddl     []string
		wantErr []string // substrings of the permanent error; none: the write succeeds
	}{
		{"tables created by an administrator are written", contractDDL(), nil},
		{"a missing column is a permanent error naming exactly it", contractDDL("kind"),
			[]string{`table "public"."inventory" lacks column(s) kind (`}},
		{"missing columns are all named", contractDDL("group", "exported_at"),
			[]string{`lacks column(s) group, exported_at (`}},
		{"missing tables are named", nil,
			[]string{`table "public"."inventory" does not exist`, `table "public"."inventory_state" does not exist`}},
		{"a missing state table is named", contractDDL()[:1],
			[]string{`table "public"."inventory_state" does not exist (`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := newDatabase(t)
			exec(t, connect(t, dsn), c.ddl...)
			k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionExisting))
			s := snap(t, "c", web, 1, row("a", 1))
			errs := map[string]error{"write": k.Write(context.Background(), s), "check": k.Check(context.Background())}
			for op, err := range errs {
				if c.wantErr == nil {
					if err != nil {
						t.Fatalf("%s: %v", op, err)
					}
					continue
				}
				if !sink.IsPermanent(err) {
					t.Fatalf("%s returned %v, want a permanent error", op, err)
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("%s error %q does not say %q", op, err, w)
					}
				}
			}
			if c.wantErr == nil {
				if d := diff(want(s), newReader(t, dsn, k).read(t, "c", web)); d != "" {
					t.Fatalf("projection (-want +got):\n%s", d)
				}
			}
		})
	}
}

func TestProvisioningEnsure(t *testing.T) {
	t.Run("ensuring twice is idempotent and keeps the rows", func(t *testing.T) {
		dsn := newDatabase(t)
		s := snap(t, "c", web, 1, row("a", 1))
		write(t, open(t, dsn, spec("inv", "rows", v1alpha1.ProvisionEnsure)), s)
		c := connect(t, dsn)
		before := schemaOf(t, c)
		k := open(t, dsn, spec("inv", "rows", v1alpha1.ProvisionEnsure))
		if err := k.Check(context.Background()); err != nil {
			t.Fatalf("check: %v", err)
		}
		write(t, k, snap(t, "c", web, 2, row("a", 1), row("b", 2)))
		if d := cmp.Diff(before, schemaOf(t, c)); d != "" {
			t.Fatalf("the second ensure changed the schema (-before +after):\n%s", d)
		}
		if d := diff(want(snap(t, "c", web, 2, row("a", 1), row("b", 2))), newReader(t, dsn, k).read(t, "c", web)); d != "" {
			t.Fatalf("projection (-want +got):\n%s", d)
		}
	})
	t.Run("sinks ensuring one table at once all succeed", func(t *testing.T) {
		dsn := newDatabase(t)
		const n = 4
		var wg sync.WaitGroup
		errs := make([]error, n)
		sinks := make([]sink.Sink, n)
		for i := range sinks {
			sinks[i] = open(t, dsn, spec("shared", "rows", v1alpha1.ProvisionEnsure))
		}
		for i, k := range sinks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				inv := busv1.NamespacedName{Namespace: "team-a", Name: string(rune('a' + i))}
				errs[i] = k.Write(context.Background(), snap(t, "c", inv, 1, row("x", float64(i))))
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("sink %d: %v", i, err)
			}
		}
	})
	t.Run("a role without CREATE on the schema gets a permanent error", func(t *testing.T) {
		dsn := newDatabase(t)
		exec(t, connect(t, dsn), `DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'kollect_nocreate') THEN CREATE ROLE kollect_nocreate LOGIN; END IF;
END $$`, `REVOKE CREATE ON SCHEMA public FROM PUBLIC`)
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.User("kollect_nocreate")
		err = open(t, u.String(), spec("public", "inventory", v1alpha1.ProvisionEnsure)).Write(context.Background(), snap(t, "c", web, 1, row("a", 1)))
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "insufficient privilege") {
			t.Fatalf("write returned %v, want a permanent insufficient privilege error", err)
		}
	})
	t.Run("a table of the same name with other columns is reported", func(t *testing.T) {
		dsn := newDatabase(t)
		exec(t, connect(t, dsn), `CREATE TABLE inventory (id int PRIMARY KEY, cluster text)`)
		err := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure)).Write(context.Background(), snap(t, "c", web, 1, row("a", 1)))
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "lacks column(s) inventory_namespace, inventory_name,") {
			t.Fatalf("write returned %v, want a permanent error naming the missing columns", err)
		}
	})
}

// schemaOf lists the columns and indexes of the database's user schemas.
func schemaOf(t *testing.T, c *pgx.Conn) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), `
SELECT table_schema || '.' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
UNION ALL
SELECT schemaname || '.' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname NOT IN ('pg_catalog')
ORDER BY 1`)
	if err != nil {
		t.Fatalf("read the schema: %v", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("read the schema: %v", err)
	}
	return out
}
