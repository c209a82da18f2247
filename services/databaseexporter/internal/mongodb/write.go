package mongodb

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Above perDocumentLimit replaced and deleted documents, a write deletes
// them by lists of up to DefaultDeleteChunk _ids and inserts the
// replacements, instead of one replace or delete per document. Both are a
// few indexed operations on MongoDB; on FerretDB (SQLite) every update or
// delete of a document scans the collection, and a delete by a list of _ids
// scans it once for the whole list.
const perDocumentLimit = 8

// DefaultDeleteChunk is the most documents one delete names or matches.
// FerretDB on SQLite deletes the matched documents in one statement with a
// parameter each, and SQLite refuses more than 32,766; it also compares
// each document with each _id of a list.
const DefaultDeleteChunk = 10000

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

// deleteIDs deletes the documents with the given _ids, s.deleteChunk at a
// time.
func (s *Sink) deleteIDs(ctx context.Context, ids []string) error {
	for start := 0; start < len(ids); start += s.deleteChunk {
		end := min(start+s.deleteChunk, len(ids))
		filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids[start:end]}}}}
		if _, err := s.data.DeleteMany(ctx, filter); err != nil {
			return classify(ctx, fmt.Sprintf("delete documents %d-%d of %d", start, end-1, len(ids)), err)
		}
	}
	return nil
}

// deleteScope deletes the inventory's documents with the given _ids, which
// are all its documents of the current layout, by ranges of s.deleteChunk
// _ids: a range costs FerretDB two comparisons per document where a list
// costs one per _id.
func (s *Sink) deleteScope(ctx context.Context, env busv1.Envelope, ids []string) error {
	slices.Sort(ids)
	for start := 0; start < len(ids); start += s.deleteChunk {
		end := min(start+s.deleteChunk, len(ids))
		filter := append(scope(env), bson.E{Key: "_id", Value: bson.D{{Key: "$gte", Value: ids[start]}, {Key: "$lte", Value: ids[end-1]}}})
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
