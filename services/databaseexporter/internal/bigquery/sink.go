package bigquery

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/iterator"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// stagingTTL is the expiration of a staging table, in case a write dies
// before deleting it.
const stagingTTL = 6 * time.Hour

// Sink writes inventories to one BigQuery table. It implements sink.Sink,
// sink.Checker and sink.DriftChecker.
type Sink struct {
	client       *bigquery.Client
	data         tableRef
	location     string
	ensure       bool
	transactions bool
	history      bool

	mu          sync.Mutex
	provisioned bool
	// dataColumns and historyColumns are the columns of the data and
	// history tables, as last read or created; altered holds, per typed
	// column the server refused to add, when to ask again (typed.go).
	dataColumns, historyColumns tableColumns
	altered                     map[string]time.Time
}

// state is what the state table records for one (cluster, inventory). An
// empty Checksum marks a write in progress or interrupted.
type state struct {
	Revision int64  `bigquery:"revision"`
	Checksum string `bigquery:"checksum"`
}

// Write makes the table hold exactly s for its (cluster, inventory).
func (s *Sink) Write(ctx context.Context, snap sink.Snapshot) error {
	env := snap.Envelope
	if err := sink.CheckRevision(env.Revision); err != nil {
		return err
	}
	cols, err := s.prepare(ctx, declaredColumns(env.AttributeTypes))
	if err != nil {
		return err
	}
	if snap.Deleted {
		return s.run(ctx, "delete the inventory", withHistory(s.history, s.data, deleteStatements(s.data, env), env, cols))
	}
	st, found, err := s.readState(ctx, env)
	if err != nil {
		return err
	}
	rev := sink.Revision64(env.Revision)
	// A backfill's first revision rewinds the history to before it, so the
	// backfill rebuilds it forward from there (see Snapshot.BackfillStart).
	rewind := s.history && snap.BackfillStart
	switch {
	case found && rev < st.Revision && !snap.Replay:
		return nil
	case found && st.Checksum == env.Checksum && rev == st.Revision && !snap.Repair && !rewind:
		return nil
	case found && st.Checksum == env.Checksum && !snap.Repair:
		return s.run(ctx, "record the state", withRewind(rewind, s.data,
			withHistory(s.history, s.data, withParams(stateStatements(s.data), env), env, cols), env))
	}
	var staging tableRef
	if len(env.Items) > 0 {
		if staging, err = s.stage(ctx, env.Items, cols); err != nil {
			return err
		}
		defer s.dropStaging(ctx, staging)
	}
	return s.run(ctx, "apply the snapshot", withRewind(rewind, s.data,
		withHistory(s.history, s.data, replaceStatements(s.data, staging, env, cols), env, cols), env))
}

// stage loads rows into a new staging table and returns it.
func (s *Sink) stage(ctx context.Context, rows []busv1.Row, cols []typedColumn) (tableRef, error) {
	body, err := payload(rows, cols)
	if err != nil {
		return tableRef{}, sink.Permanent(err)
	}
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	staging := s.data.with(s.data.Table + "_staging_" + hex.EncodeToString(suffix[:]))
	if err := staging.validate(); err != nil {
		return tableRef{}, err
	}
	t := s.client.Dataset(staging.Dataset).Table(staging.Table)
	if err := t.Create(ctx, &bigquery.TableMetadata{Schema: stagingSchema(cols), ExpirationTime: time.Now().Add(stagingTTL)}); err != nil {
		return tableRef{}, classify(ctx, "create staging table "+staging.Table, err)
	}
	src := bigquery.NewReaderSource(bytes.NewReader(body))
	src.SourceFormat = bigquery.JSON
	src.Schema = stagingSchema(cols)
	loader := t.LoaderFrom(src)
	loader.WriteDisposition = bigquery.WriteTruncate
	loader.Location = s.location
	if err := s.wait(ctx, "load staging table "+staging.Table, func() (*bigquery.Job, error) { return loader.Run(ctx) }); err != nil {
		s.dropStaging(ctx, staging)
		return tableRef{}, err
	}
	return staging, nil
}

// dropStaging deletes a staging table, even when ctx is cancelled; a
// failure leaves it to expire.
func (s *Sink) dropStaging(ctx context.Context, staging tableRef) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_ = s.client.Dataset(staging.Dataset).Table(staging.Table).Delete(ctx)
}

// run runs stmts: as one transaction, or one by one without transactions.
func (s *Sink) run(ctx context.Context, op string, stmts []statement) error {
	if s.transactions {
		stmts = []statement{script(stmts)}
	}
	for _, st := range stmts {
		if err := s.exec(ctx, op, st); err != nil {
			return err
		}
	}
	return nil
}

// exec runs one statement (a script or a single one) as a query job.
func (s *Sink) exec(ctx context.Context, op string, st statement) error {
	q := s.client.Query(st.SQL)
	q.Parameters = st.Params
	q.Location = s.location
	return s.wait(ctx, op, func() (*bigquery.Job, error) { return q.Run(ctx) })
}

// wait starts a job and waits for it to finish.
func (s *Sink) wait(ctx context.Context, op string, start func() (*bigquery.Job, error)) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	job, err := start()
	if err != nil {
		return classify(ctx, op, err)
	}
	status, err := job.Wait(ctx)
	if err != nil {
		return classify(ctx, op, err)
	}
	return classify(ctx, op, status.Err())
}

// readState returns the inventory's state; found is false when none is
// recorded.
func (s *Sink) readState(ctx context.Context, env busv1.Envelope) (state, bool, error) {
	st := readStateStatement(s.data, env)
	q := s.client.Query(st.SQL)
	q.Parameters = st.Params
	q.Location = s.location
	if err := ctx.Err(); err != nil {
		return state{}, false, fmt.Errorf("read state: %w", err)
	}
	it, err := q.Read(ctx)
	if err != nil {
		return state{}, false, classify(ctx, "read state", err)
	}
	var got state
	err = it.Next(&got)
	if errors.Is(err, iterator.Done) {
		return state{}, false, nil
	}
	if err != nil {
		return state{}, false, classify(ctx, "read state", err)
	}
	return got, true, nil
}

// Check verifies, or in ensure mode creates, the dataset and tables: a
// request that needs the credentials, each time it is called.
func (s *Sink) Check(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.provision(ctx, nil)
}

// Close closes the client.
func (s *Sink) Close(context.Context) error {
	if err := s.client.Close(); err != nil {
		return fmt.Errorf("close bigquery client: %w", err)
	}
	return nil
}
