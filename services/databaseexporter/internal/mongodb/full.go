package mongodb

import (
	"context"
	"hash/maphash"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
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

// writeAll makes the inventory's documents equal to env's rows: the rows
// the collection lacks are inserted, those whose stored bytes differ are
// replaced, the documents of rows that left are deleted, and so is every
// document of the earlier layout. Unchanged rows are not written. It reports
// whether documents of the earlier layout were converted.
func (s *Sink) writeAll(ctx context.Context, env busv1.Envelope) (converted bool, err error) {
	have, err := s.readScope(ctx, env, true)
	if err != nil {
		return false, err
	}
	var c changes
	for _, r := range env.Items {
		raw, err := encodeRow(r)
		if err != nil {
			return false, err
		}
		id := documentID(env, r.Key())
		h, ok := have.rows[id]
		switch {
		case !ok:
			c.insert = append(c.insert, change{id: id, row: r, raw: raw})
		case h != maphash.Bytes(s.seed, raw):
			c.replace = append(c.replace, change{id: id, row: r, raw: raw})
		}
		delete(have.rows, id)
	}
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
