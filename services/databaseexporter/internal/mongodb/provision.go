package mongodb

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"kollect.dev/kollect/pkg/sink"
)

// Index names created in ensure mode.
const (
	// IdentityIndex is the unique index on the identity fields of _id.
	IdentityIndex = "kollect_identity"
	// InventoryIndex serves scoped queries and the scoped delete.
	InventoryIndex = "kollect_inventory"
)

// codeNamespaceExists answers createCollection of an existing collection.
const codeNamespaceExists = 48

// prepare provisions the collections once per sink: in ensure mode it
// creates them and their indexes, in existing mode it checks they exist.
func (s *Sink) prepare(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provisioned {
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
// indexes of the data collection.
func (s *Sink) create(ctx context.Context) error {
	db := s.client.Database(s.database)
	for _, name := range []string{s.data.Name(), s.state.Name()} {
		err := db.CreateCollection(ctx, name)
		var se mongo.ServerError
		if err != nil && (!errors.As(err, &se) || !se.HasErrorCode(codeNamespaceExists)) {
			return classify(ctx, fmt.Sprintf("create collection %s.%s", s.database, name), err)
		}
	}
	identity := bson.D{}
	for _, f := range []string{"cluster", "inventoryNamespace", "inventoryName", "targetNamespace", "targetName", "uid"} {
		identity = append(identity, bson.E{Key: "_id." + f, Value: 1})
	}
	return s.createIndexes(ctx, map[string]mongo.IndexModel{
		IdentityIndex: {Keys: identity, Options: options.Index().SetName(IdentityIndex).SetUnique(true)},
		InventoryIndex: {Keys: bson.D{{Key: "cluster", Value: 1}, {Key: "inventoryNamespace", Value: 1}, {Key: "inventoryName", Value: 1}, {Key: "revision", Value: 1}},
			Options: options.Index().SetName(InventoryIndex)},
	})
}

// indexInfo is the part of an index description prepare reads.
type indexInfo struct {
	Name string `bson:"name"`
}

// createIndexes creates the models (by name) that the collection lacks, one
// by one: FerretDB fails a createIndexes that names an existing index.
func (s *Sink) createIndexes(ctx context.Context, models map[string]mongo.IndexModel) error {
	what := fmt.Sprintf("indexes of %s.%s", s.database, s.data.Name())
	cur, err := s.data.Indexes().List(ctx)
	if err != nil {
		return classify(ctx, "list "+what, err)
	}
	var existing []indexInfo
	if err := cur.All(ctx, &existing); err != nil {
		return classify(ctx, "list "+what, err)
	}
	for _, name := range []string{IdentityIndex, InventoryIndex} {
		m, ok := models[name]
		if !ok || slices.Contains(existing, indexInfo{Name: name}) {
			continue
		}
		if _, err := s.data.Indexes().CreateOne(ctx, m); err != nil {
			return classify(ctx, "create "+what, err)
		}
	}
	return nil
}

// verify returns a permanent error naming the first missing collection.
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
	return nil
}
