package mongodb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"kollect.dev/kollect/pkg/sink"
)

// IdentityIndex is the unique index on the identity fields (identityFields)
// that ensure mode creates. Earlier versions gave that name to a unique
// index on the fields of the identity _id (_id.cluster, ...), which ensure
// mode drops; they also created kollect_inventory on (cluster,
// inventoryNamespace, inventoryName, revision), which is left alone but no
// longer created: the identity index serves scoped queries.
const IdentityIndex = "kollect_identity"

// codeNamespaceExists answers createCollection of an existing collection.
const codeNamespaceExists = 48

// prepare provisions the collections once per sink: in ensure mode it
// creates them and their index, in existing mode it checks them. Once
// provisioned, it only retries an identity index whose creation failed.
func (s *Sink) prepare(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provisioned {
		if s.identityRetry {
			return s.createIdentityIndex(ctx)
		}
		return nil
	}
	var err error
	if s.ensure {
		err = s.create(ctx)
	} else {
		err = s.verify(ctx)
	}
	if err == nil {
		s.provisioned = true
	}
	return err
}

// create creates the data and state collections when missing and the
// identity index, replacing the index of the earlier layout.
func (s *Sink) create(ctx context.Context) error {
	db := s.client.Database(s.database)
	for _, name := range []string{s.data.Name(), s.state.Name()} {
		err := db.CreateCollection(ctx, name)
		var se mongo.ServerError
		if err != nil && (!errors.As(err, &se) || !se.HasErrorCode(codeNamespaceExists)) {
			return classify(ctx, fmt.Sprintf("create collection %s.%s", s.database, name), err)
		}
	}
	indexes, err := s.listIndexes(ctx)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(indexes, func(i indexInfo) bool { return i.Name == IdentityIndex }); i >= 0 {
		if !indexes[i].legacy() {
			return nil
		}
		// With a string _id, no document has _id.cluster: on MongoDB the
		// earlier index would refuse the second one.
		if err := s.data.Indexes().DropOne(ctx, IdentityIndex); err != nil {
			return classify(ctx, fmt.Sprintf("drop index %s of the earlier layout from %s.%s", IdentityIndex, s.database, s.data.Name()), err)
		}
	}
	return s.createIdentityIndex(ctx)
}

// createIdentityIndex creates the unique identity index. Documents of the
// earlier layout lack the row identity fields, so that MongoDB counts two
// of one inventory as duplicates: while some are left, a failed creation
// defers the index to the write that converts them (retryIdentityIndex).
// s.mu is held.
func (s *Sink) createIdentityIndex(ctx context.Context) error {
	keys := make(bson.D, 0, len(identityFields))
	for _, f := range identityFields {
		keys = append(keys, bson.E{Key: f, Value: 1})
	}
	_, err := s.data.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys, Options: options.Index().SetName(IdentityIndex).SetUnique(true)})
	if err == nil {
		s.identityDeferred, s.identityRetry = false, false
		return nil
	}
	if ctx.Err() == nil {
		if legacy, lerr := s.hasLegacy(ctx); lerr == nil && legacy {
			s.identityDeferred, s.identityRetry = true, false
			return nil
		}
	}
	s.identityRetry = true
	return classify(ctx, fmt.Sprintf("create index %s of %s.%s", IdentityIndex, s.database, s.data.Name()), err)
}

// retryIdentityIndex creates the identity index if it was deferred; a write
// calls it after converting documents of the earlier layout.
func (s *Sink) retryIdentityIndex(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.identityDeferred {
		return nil
	}
	return s.createIdentityIndex(ctx)
}

// hasLegacy reports whether the collection holds a document of the earlier
// layout.
func (s *Sink) hasLegacy(ctx context.Context) (bool, error) {
	err := s.data.FindOne(ctx, legacyID, options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 1}})).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, err
}

// indexInfo is the part of an index description prepare reads.
type indexInfo struct {
	Name   string `bson:"name"`
	Key    bson.D `bson:"key"`
	Unique bool   `bson:"unique"`
}

// legacy reports whether the index is on fields of the earlier layout's
// identity _id.
func (i indexInfo) legacy() bool {
	return slices.ContainsFunc(i.Key, func(e bson.E) bool { return strings.HasPrefix(e.Key, "_id.") })
}

// listIndexes lists the data collection's indexes.
func (s *Sink) listIndexes(ctx context.Context) ([]indexInfo, error) {
	what := fmt.Sprintf("list indexes of %s.%s", s.database, s.data.Name())
	cur, err := s.data.Indexes().List(ctx)
	if err != nil {
		return nil, classify(ctx, what, err)
	}
	var indexes []indexInfo
	if err := cur.All(ctx, &indexes); err != nil {
		return nil, classify(ctx, what, err)
	}
	return indexes, nil
}

// verify returns a permanent error naming the first missing collection, or
// a unique index of the earlier layout, which refuses the documents this
// version writes. Without the right to list indexes, the index check is
// skipped.
func (s *Sink) verify(ctx context.Context) error {
	names, err := s.client.Database(s.database).ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return classify(ctx, fmt.Sprintf("list collections of %s", s.database), err)
	}
	for _, name := range []string{s.data.Name(), s.state.Name()} {
		if !slices.Contains(names, name) {
			return sink.Permanent(fmt.Errorf("provisioning mode existing: collection %s.%s does not exist", s.database, name))
		}
	}
	indexes, err := s.listIndexes(ctx)
	var se mongo.ServerError
	if errors.As(err, &se) && se.HasErrorCode(codeUnauthorized) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, i := range indexes {
		if i.Unique && i.legacy() {
			return sink.Permanent(fmt.Errorf("provisioning mode existing: the unique index %s of %s.%s is on the _id fields of the earlier document layout "+
				"and refuses documents with a string _id: drop it (docs/sinks/mongodb.md, migration)", i.Name, s.database, s.data.Name()))
		}
	}
	return nil
}
