package itest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

// mongoServer is the shared MongoDB-compatible server (FerretDB).
var mongoServer = peer(func() (*testenv.Mongo, func(), error) {
	m, err := testenv.NewMongo("")
	if err != nil {
		return nil, nil, err
	}
	return m, func() { _ = m.Stop() }, nil
})

// mongoDatabase is one database on the shared MongoDB server, read back
// through a client of its own.
type mongoDatabase struct {
	// URI is the server's connection string, for the sink's Secret.
	URI string
	// Addr is the server's host:port, for a proxy in front of it.
	Addr string
	db   *mongo.Database
}

// newMongoDatabase names a database on the shared server (MongoDB creates
// it on the first write) and connects a reader to it.
func newMongoDatabase(t *testing.T, name string) mongoDatabase {
	t.Helper()
	srv := mongoServer(t)
	c, err := mongo.Connect(options.Client().ApplyURI(srv.URI))
	if err != nil {
		t.Fatalf("connect to mongodb: %v", err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	addr := strings.TrimSuffix(strings.TrimPrefix(srv.URI, "mongodb://"), "/")
	return mongoDatabase{URI: srv.URI, Addr: addr, db: c.Database(name)}
}

// rows reads what collection holds for (cluster, inventory), as a consumer
// would (docs/sinks/mongodb.md): the documents of the inventory by their
// top-level identity fields, attribute keys unescaped, and the state
// document's checksum and revision.
func (d mongoDatabase) rows(ctx context.Context, collection, cluster string, inv busv1.NamespacedName) (export, error) {
	out := export{Rows: []busv1.Row{}}
	var st struct {
		Revision int64  `bson:"revision"`
		Checksum string `bson:"checksum"`
	}
	err := d.db.Collection(collection+"_state").FindOne(ctx, bson.D{{Key: "_id", Value: bson.D{
		{Key: "cluster", Value: cluster}, {Key: "namespace", Value: inv.Namespace}, {Key: "name", Value: inv.Name}}}}).Decode(&st)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return out, fmt.Errorf("read state of %s/%s: %w", cluster, inv, err)
	}
	out.Revision, out.Checksum = uint64(st.Revision), st.Checksum
	cur, err := d.db.Collection(collection).Find(ctx, bson.D{{Key: "cluster", Value: cluster},
		{Key: "inventoryNamespace", Value: inv.Namespace}, {Key: "inventoryName", Value: inv.Name}})
	if err != nil {
		return out, err
	}
	var docs []struct {
		ID  string   `bson:"_id"`
		Row bson.Raw `bson:"row"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return out, err
	}
	for _, doc := range docs {
		js, err := bson.MarshalExtJSON(doc.Row, false, false)
		if err != nil {
			return out, err
		}
		var r busv1.Row
		if err := json.Unmarshal(js, &r); err != nil {
			return out, fmt.Errorf("decode the row of %s: %w", doc.ID, err)
		}
		r.Attributes, _ = unescapeKeys(r.Attributes).(map[string]any)
		out.Rows = append(out.Rows, r)
	}
	return out, nil
}

// keyUnescaper reverses the attribute key escaping of docs/sinks/mongodb.md.
var keyUnescaper = strings.NewReplacer("%25", "%", "%2E", ".", "%24", "$", "%00", "\x00")

// unescapeKeys unescapes the map keys of an attribute value.
func unescapeKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[keyUnescaper.Replace(k)] = unescapeKeys(e)
		}
		return out
	case []any:
		for i, e := range v {
			v[i] = unescapeKeys(e)
		}
		return v
	default:
		return v
	}
}

// waitRows waits until collection holds exactly rows for (cluster,
// inventory) and its state collection their checksum.
func (d mongoDatabase) waitRows(t *testing.T, collection, cluster string, inv busv1.NamespacedName, rows []busv1.Row, dump string) {
	t.Helper()
	want := norm(t, rows)
	sum := checksum(t, rows)
	eventually(t, waitFor, fmt.Sprintf("documents of %s/%s in %s.%s", cluster, inv, d.db.Name(), collection), func() error {
		got, err := d.rows(t.Context(), collection, cluster, inv)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(want, norm(t, got.Rows), cmpopts.EquateEmpty()); diff != "" {
			return fmt.Errorf("rows (-want +got):\n%s", diff)
		}
		if got.Checksum != sum {
			return fmt.Errorf("state checksum %s, want %s", got.Checksum, sum)
		}
		return nil
	}, dump)
}
