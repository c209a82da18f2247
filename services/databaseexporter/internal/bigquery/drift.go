package bigquery

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/api/iterator"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Drift compares what the table holds for snap's (cluster, inventory) with
// snap (header only: it is never loaded), with two queries: the state row
// is present, complete and names snap's revision and checksum, and the
// inventory has ItemCount rows. A row edited in place, with the count
// unchanged, is not detected. A newer revision in the state is not drift:
// that write's own event follows. Each check is two query jobs, billed as
// any query (the count reads the clustered scope columns only).
func (s *Sink) Drift(ctx context.Context, snap sink.Snapshot) (string, error) {
	env := snap.Envelope
	if err := sink.CheckRevision(env.Revision); err != nil {
		return "", err
	}
	if _, err := s.prepare(ctx, nil); err != nil {
		return "", err
	}
	st, found, err := s.readState(ctx, env)
	rev := sink.Revision64(env.Revision)
	switch {
	case err != nil:
		return "", err
	case !found:
		return "state row missing", nil
	case st.Revision > rev:
		return "", nil
	case st.Checksum == "":
		return "an interrupted write left the rows unsettled", nil
	case st.Revision != rev || st.Checksum != env.Checksum:
		return fmt.Sprintf("state row holds revision %d checksum %s", st.Revision, st.Checksum), nil
	}
	n, err := s.count(ctx, env)
	if err != nil {
		return "", err
	}
	if n != int64(env.ItemCount) {
		return fmt.Sprintf("%d rows, want %d", n, env.ItemCount), nil
	}
	return "", nil
}

// count returns the number of the inventory's rows.
func (s *Sink) count(ctx context.Context, env busv1.Envelope) (int64, error) {
	st := countStatement(s.data, env)
	q := s.client.Query(st.SQL)
	q.Parameters = st.Params
	q.Location = s.location
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("count the rows: %w", err)
	}
	it, err := q.Read(ctx)
	if err != nil {
		return 0, classify(ctx, "count the rows", err)
	}
	var got struct {
		N int64 `bigquery:"row_count"`
	}
	if err := it.Next(&got); err != nil && !errors.Is(err, iterator.Done) {
		return 0, classify(ctx, "count the rows", err)
	}
	return got.N, nil
}

// countStatement counts the inventory's rows.
func countStatement(data tableRef, env busv1.Envelope) statement {
	return withParams([]statement{{SQL: "SELECT COUNT(*) AS row_count FROM " + data.sql() + " WHERE " + scopeSQL}}, env)[0]
}
