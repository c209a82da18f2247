package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"kollect.dev/kollect/pkg/sink"
)

// ensure creates the schema and tables that are missing, in one
// transaction holding an advisory lock on the table's name so that
// replicas provisioning at once do not race. Existing objects are checked
// first and never re-created, so a role without CREATE privileges can use
// tables an administrator created.
func (t table) ensure(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, t.lockKey()); err != nil {
		return fmt.Errorf("lock provisioning of %s: %w", t, err)
	}
	var schema, rows, state, history, revisions bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1),
  to_regclass($2) IS NOT NULL, to_regclass($3) IS NOT NULL, to_regclass($4) IS NOT NULL, to_regclass($5) IS NOT NULL`,
		t.schema, t.rows, t.state, t.history, t.revisions).Scan(&schema, &rows, &state, &history, &revisions)
	if err != nil {
		return fmt.Errorf("look up %s: %w", t, err)
	}
	steps := []struct {
		exists bool
		ddl    string
	}{
		{schema, `CREATE SCHEMA IF NOT EXISTS ` + pgx.Identifier{t.schema}.Sanitize()},
		{rows, t.createRows()},
		{state, t.createState()},
	}
	if t.withHistory {
		for _, ddl := range t.createHistory() {
			steps = append(steps, struct {
				exists bool
				ddl    string
			}{history, ddl})
		}
		steps = append(steps, struct {
			exists bool
			ddl    string
		}{revisions, t.createRevisions()})
	}
	for _, s := range steps {
		if s.exists {
			continue
		}
		if _, err := tx.Exec(ctx, s.ddl); err != nil {
			return fmt.Errorf("create %s: %w", firstLine(s.ddl), err)
		}
	}
	// A pre-existing table of the same name with other columns is
	// reported, not written into.
	hashed, err := t.verify(ctx, tx)
	if err != nil || hashed {
		return err
	}
	// A state table of an earlier release lacks the rows hash: added
	// (NULL until the next full write of each inventory).
	if _, err := tx.Exec(ctx, `ALTER TABLE `+t.state+` ADD COLUMN IF NOT EXISTS `+hashColumn+` numeric`); err != nil {
		return fmt.Errorf("add column %s to %s: %w", hashColumn, t.state, err)
	}
	return nil
}

// verify checks that the rows and state tables exist with every column of
// the contract; what is missing is a sink.Permanent error naming it. It
// reports whether the state table has the optional rows hash column
// (hashColumn), without which drift checks compare row counts only.
func (t table) verify(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) (bool, error) {
	type want struct {
		name, quoted string
		cols         []string
	}
	wants := []want{{t.name, t.rows, rowColumns()}, {t.stateName, t.state, stateColumns}}
	if t.withHistory {
		wants = append(wants, want{t.historyName, t.history, historyColumns()}, want{t.revisionsName, t.revisions, revisionColumns})
	}
	names := make([]string, len(wants))
	have := map[string]map[string]bool{}
	for i, w := range wants {
		names[i], have[w.name] = w.name, map[string]bool{}
	}
	rows, err := q.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns
WHERE table_schema = $1 AND table_name = ANY($2)`, t.schema, names)
	if err != nil {
		return false, fmt.Errorf("read the columns of %s: %w", t, err)
	}
	var tbl, col string
	_, err = pgx.ForEachRow(rows, []any{&tbl, &col}, func() error {
		have[tbl][col] = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("read the columns of %s: %w", t, err)
	}
	var problems []string
	for _, want := range wants {
		if len(have[want.name]) == 0 {
			problems = append(problems, fmt.Sprintf("table %s does not exist", want.quoted))
			continue
		}
		var missing []string
		for _, c := range want.cols {
			if !have[want.name][c] {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("table %s lacks column(s) %s", want.quoted, strings.Join(missing, ", ")))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return false, sink.Permanent(fmt.Errorf("%s (create them as docs/sinks/postgres.md shows, or use provisioning mode ensure)", strings.Join(problems, "; ")))
	}
	return have[t.stateName][hashColumn], nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '('); i > 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}
