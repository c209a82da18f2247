package testenv_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"kollect.dev/kollect/pkg/testenv"
)

func TestMongoInsertFind(t *testing.T) {
	srv := timed(t, "FerretDB", func() *testenv.Mongo { return testenv.StartMongo(t) })
	ctx := t.Context()

	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer client.Disconnect(ctx)
	pods := client.Database("kollect").Collection("pods")
	if _, err := pods.InsertOne(ctx, bson.D{{Key: "_id", Value: "default/web"}, {Key: "phase", Value: "Running"}}); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var got struct {
		ID    string `bson:"_id"`
		Phase string `bson:"phase"`
	}
	if err := pods.FindOne(ctx, bson.D{{Key: "_id", Value: "default/web"}}).Decode(&got); err != nil {
		t.Fatalf("find: %v", err)
	}
	if got.ID != "default/web" || got.Phase != "Running" {
		t.Fatalf("found %+v", got)
	}
	if _, err := pods.InsertOne(ctx, bson.D{{Key: "_id", Value: "default/web"}}); !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("second insert of one _id: err = %v, want a duplicate key error", err)
	}

	if err := client.Disconnect(ctx); err != nil {
		t.Fatalf("disconnect: %v", err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	requireClosed(t, strings.TrimSuffix(strings.TrimPrefix(srv.URI, "mongodb://"), "/"))
}
