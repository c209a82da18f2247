package mongodb

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// StateSuffix is appended to the collection's name to name the state
// collection.
const StateSuffix = "_state"

// layoutStringID is the state's layout once the inventory's documents all
// have a string _id (documentID). A state without it was recorded by an
// earlier version, whose documents had the identity document as _id: the
// next write of the inventory is a full one, which converts them.
const layoutStringID int32 = 2

// state is the document of the state collection for one (cluster,
// inventory): the snapshot the collection holds.
type state struct {
	// Revision and Checksum are the last snapshot written completely.
	Revision int64  `bson:"revision"`
	Checksum string `bson:"checksum"`
	// ExportedAt is when it was written.
	ExportedAt time.Time `bson:"exportedAt"`
	// Layout is layoutStringID when the write recorded here left no
	// document of the earlier layout in the inventory.
	Layout int32 `bson:"layout,omitempty"`
	// Pending is set, with PendingRevision, while a write is changing the
	// documents; it stays set when that write was interrupted, and then the
	// documents may hold a mix of two snapshots, so that the next write
	// rewrites them all.
	Pending         bool  `bson:"pending,omitempty"`
	PendingRevision int64 `bson:"pendingRevision,omitempty"`
}

// holds reports whether the inventory's documents are, in the current
// layout, the snapshot st records: no write is in progress or was
// interrupted, and no document of the earlier layout is left.
func (st state) holds() bool { return !st.Pending && st.Layout == layoutStringID }

// stateID is the state document's _id.
func stateID(env busv1.Envelope) bson.D {
	return bson.D{
		{Key: "cluster", Value: env.Cluster},
		{Key: "namespace", Value: env.Inventory.Namespace},
		{Key: "name", Value: env.Inventory.Name},
	}
}

// readState returns the inventory's state; found is false when none is
// recorded.
func (s *Sink) readState(ctx context.Context, env busv1.Envelope) (st state, found bool, err error) {
	err = s.state.FindOne(ctx, bson.D{{Key: "_id", Value: stateID(env)}}).Decode(&st)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return state{}, false, nil
	}
	if err != nil {
		return state{}, false, classify(ctx, "read state", err)
	}
	return st, true, nil
}

// markPending records, before any document changes, that a write of env is
// in progress; it keeps the recorded revision and checksum, and the
// pending revision never moves backwards.
func (s *Sink) markPending(ctx context.Context, env busv1.Envelope) error {
	update := bson.D{
		{Key: "$set", Value: bson.D{{Key: "pending", Value: true}}},
		{Key: "$max", Value: bson.D{{Key: "pendingRevision", Value: sink.Revision64(env.Revision)}}},
	}
	_, err := s.state.UpdateOne(ctx, bson.D{{Key: "_id", Value: stateID(env)}}, update, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return classify(ctx, "mark the write in the state", err)
	}
	return nil
}

// recordState records env as the snapshot the collection holds; it is the
// last step of a write. It is conditional (M4): only a state at env's
// revision or older (or one that records no revision yet) is replaced, so a
// writer that lost its claim and finishes an older write after a newer one
// neither moves the state backwards nor claims the newer write's
// documents. Such a fenced writer may have overwritten documents of the
// newer snapshot: it leaves the state pending, so that the next write (or
// the next periodic drift check) rewrites them all, and returns nil, as
// for any older revision. A replay (sink.Snapshot.Replay) records its older
// revision unconditionally, as before.
func (s *Sink) recordState(ctx context.Context, env busv1.Envelope, replay bool) error {
	rev := sink.Revision64(env.Revision)
	doc := bson.D{
		{Key: "_id", Value: stateID(env)},
		{Key: "revision", Value: rev},
		{Key: "checksum", Value: env.Checksum},
		{Key: "exportedAt", Value: env.ExportedAt},
		{Key: "layout", Value: layoutStringID},
	}
	filter := bson.D{{Key: "_id", Value: stateID(env)}}
	if !replay {
		filter = append(filter, bson.E{Key: "$or", Value: bson.A{
			bson.D{{Key: "revision", Value: bson.D{{Key: "$lte", Value: rev}}}},
			bson.D{{Key: "revision", Value: bson.D{{Key: "$exists", Value: false}}}},
		}})
	}
	_, err := s.state.ReplaceOne(ctx, filter, doc, options.Replace().SetUpsert(true))
	if mongo.IsDuplicateKeyError(err) {
		// The upsert found no state this old: a newer write recorded its
		// state first.
		return s.markOvertaken(ctx, env)
	}
	if err != nil {
		return classify(ctx, "record state", err)
	}
	return nil
}

// markOvertaken leaves the newer state pending after a fenced write.
func (s *Sink) markOvertaken(ctx context.Context, env busv1.Envelope) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "pending", Value: true}}}}
	if _, err := s.state.UpdateOne(ctx, bson.D{{Key: "_id", Value: stateID(env)}}, update); err != nil {
		return classify(ctx, "mark the state overtaken", err)
	}
	return nil
}
