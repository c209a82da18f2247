package mongodb

import (
	"context"
	"fmt"

	"kollect.dev/kollect/pkg/sink"
)

// Drift compares what the collection holds for s's (cluster, inventory)
// with s (header only: it is never loaded): the state document is present,
// records s's revision and checksum, shows no write in progress, overtaken
// or in the earlier layout, and the inventory has ItemCount documents (one
// count on the scope index). A document edited in place, with the count
// unchanged, is not detected: that would need every document read back. A
// newer revision in the state is not drift: that write's own event follows.
func (s *Sink) Drift(ctx context.Context, snap sink.Snapshot) (string, error) {
	env := snap.Envelope
	if err := sink.CheckRevision(env.Revision); err != nil {
		return "", err
	}
	if err := s.prepare(ctx); err != nil {
		return "", err
	}
	st, found, err := s.readState(ctx, env)
	rev := sink.Revision64(env.Revision)
	switch {
	case err != nil:
		return "", err
	case !found:
		return "state document missing", nil
	case st.Revision > rev:
		return "", nil
	case st.Pending:
		return "an interrupted or overtaken write left the documents unsettled", nil
	case st.Revision != rev || st.Checksum != env.Checksum:
		return fmt.Sprintf("state document holds revision %d checksum %s", st.Revision, st.Checksum), nil
	case st.Layout != layoutStringID:
		return "documents of the earlier layout", nil
	}
	n, err := s.data.CountDocuments(ctx, scope(env))
	if err != nil {
		return "", classify(ctx, "count the inventory's documents", err)
	}
	if n != int64(env.ItemCount) {
		return fmt.Sprintf("%d documents, want %d", n, env.ItemCount), nil
	}
	return "", nil
}
