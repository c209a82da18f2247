package postgres_test

import (
	"context"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

// drift runs k's drift check of s as the runtime does, with the header only.
func drift(t *testing.T, k *postgres.Sink, s sink.Snapshot) string {
	t.Helper()
	h := s
	h.Envelope.Items = nil
	h.Load = func(context.Context) (busv1.Envelope, error) {
		t.Error("the drift check loaded the snapshot")
		return s.Envelope, nil
	}
	reason, err := k.Drift(context.Background(), h)
	if err != nil {
		t.Fatalf("drift check: %v", err)
	}
	return reason
}

func TestDriftIsDetectedAndRepaired(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(rows, state string) []string
		reason string
	}{
		{"rows deleted by hand", func(rows, _ string) []string {
			return []string{`DELETE FROM ` + rows + ` WHERE source_uid IN ('a', 'c')`}
		}, "1 rows, want 3"},
		{"the state row deleted by hand", func(_, state string) []string {
			return []string{`DELETE FROM ` + state + ` WHERE inventory_name = 'web'`}
		}, "state row missing"},
		{"rows and the state row deleted by hand", func(rows, state string) []string {
			return []string{`DELETE FROM ` + rows + ` WHERE inventory_name = 'web'`, `DELETE FROM ` + state + ` WHERE inventory_name = 'web'`}
		}, "state row missing"},
		{"one row's attribute updated by hand", func(rows, _ string) []string {
			return []string{`UPDATE ` + rows + ` SET attributes = '{"v": 99}' WHERE source_uid = 'b'`}
		}, "row content changed"},
		{"a row's name updated by hand", func(rows, _ string) []string {
			return []string{`UPDATE ` + rows + ` SET resource_name = 'renamed' WHERE source_uid = 'a'`}
		}, "row content changed"},
		{"a row inserted by hand", func(rows, _ string) []string {
			return []string{`INSERT INTO ` + rows + ` SELECT cluster, inventory_namespace, inventory_name, target_namespace,
  target_name, 'x', resource_namespace, 'pod-x', "group", version, kind, attributes, checksum, revision, exported_at
FROM ` + rows + ` WHERE source_uid = 'a'`}
		}, "4 rows, want 3"},
		{"the state row set back by hand", func(_, state string) []string {
			return []string{`UPDATE ` + state + ` SET revision = 0 WHERE inventory_name = 'web'`}
		}, "state row holds revision 0"},
		{"the table dropped by hand", func(rows, state string) []string {
			return []string{`DROP TABLE ` + rows, `DROP TABLE ` + state}
		}, "table missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := newDatabase(t)
			k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
			s := snap(t, "c", web, 1, row("a", 1), row("b", 2), row("c", 3))
			write(t, k, s)
			// A second writer of the same table, as after a restart.
			other := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
			write(t, other, snap(t, "c", busv1.NamespacedName{Namespace: "team-a", Name: "other"}, 1, row("o", 1)))
			if got := drift(t, k, s); got != "" {
				t.Fatalf("drift %q before any damage, want none", got)
			}
			r := newReader(t, dsn, k)
			exec(t, r.conn, c.damage(k.Table(), k.StateTable())...)
			if got := drift(t, k, s); !strings.HasPrefix(got, c.reason) {
				t.Fatalf("drift %q, want %q", got, c.reason)
			}
			again := s
			again.Envelope.ExportedAt = again.Envelope.ExportedAt.Add(60e9)
			write(t, k, again) // without Repair the same revision is a no-op while the state row names it
			if got := drift(t, k, s); !strings.Contains(c.reason, "state row") && c.reason != "table missing" && got == "" {
				t.Fatal("a plain re-write of the same revision repaired the drift: Repair is not what restores it")
			}
			again.Repair = true
			write(t, k, again)
			if d := diff(want(s), r.read(t, "c", web)); d != "" {
				t.Fatalf("projection after the repair (-want +got):\n%s", d)
			}
			if got := drift(t, k, s); got != "" {
				t.Fatalf("drift %q after the repair, want none", got)
			}
			if got := r.read(t, "c", busv1.NamespacedName{Namespace: "team-a", Name: "other"}); c.reason != "table missing" && len(got.Rows) != 1 {
				t.Fatalf("the other inventory holds %d rows after the repair, want 1", len(got.Rows))
			}
		})
	}
}

func TestDeltasKeepTheRowsHash(t *testing.T) {
	dsn := newDatabase(t)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	base := snap(t, "c", web, 1, row("a", 1), row("b", 2), row("c", 3))
	write(t, k, base)
	next := snap(t, "c", web, 2, row("a", 5), row("c", 3), row("d", 4))
	next.Delta = &busv1.Delta{BaseRevision: 1, BaseChecksum: base.Envelope.Checksum,
		Upserts: []busv1.Row{row("a", 5), row("c", 3), row("d", 4)}, Deletes: []busv1.RowKey{row("b", 0).Key(), row("z", 0).Key()}}
	if err := k.WriteDelta(context.Background(), next); err != nil {
		t.Fatalf("write delta: %v", err)
	}
	r := newReader(t, dsn, k)
	if d := diff(want(next), r.read(t, "c", web)); d != "" {
		t.Fatalf("projection (-want +got):\n%s", d)
	}
	if got := drift(t, k, next); got != "" {
		t.Fatalf("drift %q after a delta, want none: the delta did not keep the rows hash", got)
	}
	exec(t, r.conn, `UPDATE `+k.Table()+` SET attributes = '{"v": 6}' WHERE source_uid = 'd'`)
	if got := drift(t, k, next); got != "row content changed" {
		t.Fatalf("drift %q after an edit following a delta, want row content changed", got)
	}
}

func TestAStateTableOfAnEarlierReleaseGetsTheRowsHash(t *testing.T) {
	dsn := newDatabase(t)
	c := connect(t, dsn)
	exec(t, c, `CREATE TABLE inventory_state (cluster text NOT NULL, inventory_namespace text NOT NULL,
  inventory_name text NOT NULL, revision bigint NOT NULL, checksum text NOT NULL, item_count integer NOT NULL,
  exported_at timestamptz NOT NULL, PRIMARY KEY (cluster, inventory_namespace, inventory_name))`,
		`INSERT INTO inventory_state VALUES ('c', 'team-a', 'web', 1, 'old', 0, now())`)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	s := snap(t, "c", web, 1, row("a", 1))
	if got := drift(t, k, s); got != "state row holds revision 1 checksum old" {
		t.Fatalf("drift %q, want the old state row named", got)
	}
	exec(t, c, `UPDATE inventory_state SET checksum = '`+s.Envelope.Checksum+`', item_count = 1`)
	exec(t, c, `INSERT INTO inventory SELECT 'c', 'team-a', 'web', 'team-a', 'pods', 'a', 'team-a', 'pod-a', '', 'v1', 'Pod',
  '{"v": 1}', 'old', 1, now()`)
	if got := drift(t, k, s); got != "rows hash not recorded" {
		t.Fatalf("drift %q of a state row without a rows hash, want rows hash not recorded", got)
	}
	s.Repair = true
	write(t, k, s)
	if got := drift(t, k, s); got != "" {
		t.Fatalf("drift %q after the repair, want none", got)
	}
}

func TestWithoutTheRowsHashColumnDriftComparesCounts(t *testing.T) {
	dsn := newDatabase(t)
	ensure := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	s := snap(t, "c", web, 1, row("a", 1), row("b", 2))
	write(t, ensure, s)
	c := connect(t, dsn)
	exec(t, c, `ALTER TABLE `+ensure.StateTable()+` DROP COLUMN rows_hash`)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionExisting))
	exec(t, c, `UPDATE `+k.Table()+` SET attributes = '{"v": 9}' WHERE source_uid = 'a'`)
	if got := drift(t, k, s); got != "" {
		t.Fatalf("drift %q without the rows hash column, want none (counts only)", got)
	}
	exec(t, c, `DELETE FROM `+k.Table()+` WHERE source_uid = 'a'`)
	if got := drift(t, k, s); got != "1 rows, want 2" {
		t.Fatalf("drift %q, want 1 rows, want 2", got)
	}
	s.Repair = true
	write(t, k, s)
	if got := drift(t, k, s); got != "" {
		t.Fatalf("drift %q after the repair, want none", got)
	}
}
