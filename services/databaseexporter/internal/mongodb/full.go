package mongodb

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"iter"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// legacyID matches the documents of the earlier layout, whose _id is the
// identity document.
var legacyID = bson.D{{Key: "_id", Value: bson.D{{Key: "$type", Value: "object"}}}}

// stored is what a full write needs to know of the inventory's documents:
// a hash of each current-layout document's row by _id, and whether any
// document of the earlier layout is left.
type stored struct {
	rows   map[string]uint64
	legacy bool
}

// insertBatch is how many new documents a full write inserts at once, as
// it reads the rows: it holds no more of them.
const insertBatch = 1000

// replaceBatch is how many changed documents a full write replaces at once:
// more than perDocumentLimit, so each batch is one delete by a list of _ids
// (one scan of the collection on FerretDB) and inserts.
const replaceBatch = 4_000

// writeAll makes the inventory's documents equal to snap's rows: the rows
// the collection lacks are inserted, those whose stored bytes differ are
// replaced, the documents of rows that left are deleted, and so is every
// document of the earlier layout. Unchanged rows are not written. The rows
// are read one at a time (streamed from the bus when snap is header-only):
// new ones are inserted insertBatch at a time and changed ones replaced
// replaceBatch at a time, so that the write holds a batch of rows, not the
// inventory, and the _ids and row hashes of the stored documents (about
// 100 bytes a document) throughout.
// It reports whether documents of the earlier layout were converted.
func (s *Sink) writeAll(ctx context.Context, snap sink.Snapshot) (converted bool, err error) {
	env := snap.Envelope
	have, err := s.readScope(ctx, env, true)
	if err != nil {
		return false, err
	}
	var c, inserts changes
	for r, err := range rowsOf(ctx, snap) {
		if err != nil {
			return false, err
		}
		doc, err := encodeRow(r)
		if err != nil {
			return false, err
		}
		id := documentID(env, r.Key())
		h, ok := have.rows[id]
		switch {
		case !ok:
			inserts.insert = append(inserts.insert, change{id: id, row: r, raw: doc})
		case h != maphash.Bytes(s.seed, doc):
			c.replace = append(c.replace, change{id: id, row: r, raw: doc})
		}
		delete(have.rows, id)
		if len(inserts.insert) >= insertBatch {
			if err := s.apply(ctx, env, inserts); err != nil {
				return false, err
			}
			inserts.insert = inserts.insert[:0]
		}
		if len(c.replace) >= replaceBatch {
			if err := s.apply(ctx, env, c); err != nil {
				return false, err
			}
			c.replace = c.replace[:0]
		}
	}
	c.insert = inserts.insert
	for id := range have.rows {
		c.delete = append(c.delete, id)
	}
	if err := s.apply(ctx, env, c); err != nil {
		return false, err
	}
	if !have.legacy {
		return false, nil
	}
	if _, err := s.data.DeleteMany(ctx, append(scope(env), legacyID...)); err != nil {
		return false, classify(ctx, "delete the documents of the earlier layout", err)
	}
	return true, nil
}

// readScope reads the _ids of the inventory's documents, with a hash of
// their rows when rows is set.
func (s *Sink) readScope(ctx context.Context, env busv1.Envelope, rows bool) (stored, error) {
	have := stored{rows: map[string]uint64{}}
	projection := bson.D{{Key: "_id", Value: 1}}
	if rows {
		projection = bson.D{{Key: "row", Value: 1}}
	}
	cur, err := s.data.Find(ctx, scope(env), options.Find().SetProjection(projection))
	if err != nil {
		return have, classify(ctx, "read the inventory's documents", err)
	}
	defer func() { _ = cur.Close(context.WithoutCancel(ctx)) }()
	for cur.Next(ctx) {
		key, ok := cur.Current.Lookup("_id").StringValueOK()
		if !ok {
			have.legacy = true
			continue
		}
		var h uint64
		if rows {
			row, _ := cur.Current.Lookup("row").DocumentOK()
			h = maphash.Bytes(s.seed, row)
		}
		have.rows[key] = h
	}
	if err := cur.Err(); err != nil {
		return have, classify(ctx, "read the inventory's documents", err)
	}
	return have, nil
}

// rowsOf yields snap's items when loaded, else its rows decoded one at a
// time from the stream.
func rowsOf(ctx context.Context, snap sink.Snapshot) iter.Seq2[busv1.Row, error] {
	return func(yield func(busv1.Row, error) bool) {
		if snap.Loaded() {
			for _, r := range snap.Envelope.Items {
				if !yield(r, nil) {
					return
				}
			}
			return
		}
		for raw, err := range snap.Rows(ctx) {
			var r busv1.Row
			if err == nil {
				if derr := json.Unmarshal(raw, &r); derr != nil {
					err = sink.Permanent(fmt.Errorf("decode a row of %s: %w", snap.Envelope.Inventory, derr))
				}
			}
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}
