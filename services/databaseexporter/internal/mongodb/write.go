package mongodb

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Above perDocumentLimit replaced and deleted documents, a write deletes
// them by lists of up to deleteChunk _ids and inserts the replacements,
// instead of one replace or delete per document. Both are a few indexed
// operations on MongoDB; on FerretDB (SQLite) every update or delete of a
// document scans the collection, and a delete by a list of _ids scans it
// once for the whole list. deleteChunk stays below SQLite's limit of 32,766
// parameters per statement.
const (
	perDocumentLimit = 8
	deleteChunk      = 10000
)

// change is a row to write: its _id and encoded row.
type change struct {
	id  string
	row busv1.Row
	raw bson.Raw
}

// changes is what one write sends: rows the collection does not hold,
// rows it may hold (with other content), and _ids to delete. No _id
// appears twice.
type changes struct {
	insert, replace []change
	delete          []string
}

// apply sends c in unordered bulk writes of at most s.batch operations.
// Few replaced or deleted documents are replaced and deleted one by one;
// more are first deleted by lists of _ids, then inserted with their new
// rows, so that a changed row is missing between the two (while the state
// is pending, as for any write in progress).
func (s *Sink) apply(ctx context.Context, env busv1.Envelope, c changes) error {
	b := s.newBatcher()
	if len(c.replace)+len(c.delete) <= perDocumentLimit {
		for _, ch := range c.insert {
			if err := b.add(ctx, mongo.NewInsertOneModel().SetDocument(document(env, ch.id, ch.row, ch.raw))); err != nil {
				return err
			}
		}
		for _, ch := range c.replace {
			m := mongo.NewReplaceOneModel().SetFilter(byID(ch.id)).SetReplacement(document(env, ch.id, ch.row, ch.raw)).SetUpsert(true)
			if err := b.add(ctx, m); err != nil {
				return err
			}
		}
		for _, id := range c.delete {
			if err := b.add(ctx, mongo.NewDeleteOneModel().SetFilter(byID(id))); err != nil {
				return err
			}
		}
		return b.flush(ctx)
	}
	ids := make([]string, 0, len(c.replace)+len(c.delete))
	for _, ch := range c.replace {
		ids = append(ids, ch.id)
	}
	ids = append(ids, c.delete...)
	if err := s.deleteIDs(ctx, ids); err != nil {
		return err
	}
	for _, list := range [][]change{c.insert, c.replace} {
		for _, ch := range list {
			if err := b.add(ctx, mongo.NewInsertOneModel().SetDocument(document(env, ch.id, ch.row, ch.raw))); err != nil {
				return err
			}
		}
	}
	return b.flush(ctx)
}

// deleteIDs deletes the documents with the given _ids, deleteChunk at a
// time.
func (s *Sink) deleteIDs(ctx context.Context, ids []string) error {
	for start := 0; start < len(ids); start += deleteChunk {
		end := min(start+deleteChunk, len(ids))
		filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids[start:end]}}}}
		if _, err := s.data.DeleteMany(ctx, filter); err != nil {
			return classify(ctx, fmt.Sprintf("delete documents %d-%d of %d", start, end-1, len(ids)), err)
		}
	}
	return nil
}

// batcher sends write models as unordered bulk writes of at most s.batch
// each. Unordered is safe: one write never names a document twice.
type batcher struct {
	s      *Sink
	models []mongo.WriteModel
	sent   int
}

func (s *Sink) newBatcher() *batcher {
	return &batcher{s: s}
}

// add queues m, sending the batch when it is full.
func (b *batcher) add(ctx context.Context, m mongo.WriteModel) error {
	b.models = append(b.models, m)
	if len(b.models) < b.s.batch {
		return nil
	}
	return b.flush(ctx)
}

// flush sends the queued models.
func (b *batcher) flush(ctx context.Context) error {
	if len(b.models) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write documents: %w", err)
	}
	first, last := b.sent, b.sent+len(b.models)-1
	if _, err := b.s.data.BulkWrite(ctx, b.models, options.BulkWrite().SetOrdered(false)); err != nil {
		return classify(ctx, fmt.Sprintf("write documents %d-%d", first, last), err)
	}
	b.sent += len(b.models)
	b.models = b.models[:0]
	return nil
}
