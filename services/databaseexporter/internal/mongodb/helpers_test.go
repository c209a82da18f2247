package mongodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
)

// sinkNS is the namespace of the test sinks and their Secrets.
const sinkNS = "kollect-system"

var dbSeq atomic.Int64

// freshDatabase names a database no other sink of the test binary uses.
func freshDatabase() string {
	return fmt.Sprintf("kollect_%d_%d", time.Now().UnixNano()%1e6, dbSeq.Add(1))
}

// testBackend dials loopback peers and gives up on servers quickly.
func testBackend() Backend {
	return Backend{Egress: egress.Policy{AllowPrivate: true}, ServerSelectionTimeout: 5 * time.Second}
}

// sinkConfig is the config of a mongodb sink on database.collection whose
// Secret "mongo" holds the connection string.
func sinkConfig(t testing.TB, cluster, database, collection string, mode v1alpha1.ProvisioningMode) busv1.SinkConfig {
	t.Helper()
	spec := v1alpha1.KollectDatabaseSinkSpec{
		Type:       v1alpha1.DatabaseMongoDB,
		SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: "mongo"}, Cluster: cluster, Provisioning: &v1alpha1.Provisioning{Mode: mode}},
		MongoDB:    &v1alpha1.MongoDBSink{Database: database, Collection: collection},
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return busv1.SinkConfig{Family: busv1.FamilyDatabase, Type: "mongodb", Namespace: sinkNS, Name: "rows", Cluster: cluster, Spec: raw}
}

// secrets holds the Secret "mongo" with uri.
func secrets(uri string) backend.MapCredentials {
	return backend.MapCredentials{{Namespace: sinkNS, Name: "mongo"}: {"uri": []byte(uri)}}
}

// newSink creates a sink of b on database.collection and closes it on
// cleanup.
func newSink(t testing.TB, b Backend, uri, cluster, database, collection string) *Sink {
	t.Helper()
	s, err := b.New(context.Background(), sinkConfig(t, cluster, database, collection, v1alpha1.ProvisionEnsure), secrets(uri))
	if err != nil {
		t.Fatalf("new sink: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s.(*Sink)
}

// reader reads projections back through its own driver client.
type reader struct{ data, state *mongo.Collection }

// newReader connects a reader to database.collection.
func newReader(t testing.TB, uri, database, collection string) reader {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatalf("connect reader: %v", err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	db := c.Database(database)
	return reader{data: db.Collection(collection), state: db.Collection(collection + "_state")}
}

// Read returns what the collection holds for (cluster, inv).
func (r reader) Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	var p sinktest.Projection
	var st struct {
		Revision int64  `bson:"revision"`
		Checksum string `bson:"checksum"`
	}
	err := r.state.FindOne(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "cluster", Value: cluster},
		{Key: "namespace", Value: inv.Namespace}, {Key: "name", Value: inv.Name}}}}).Decode(&st)
	found := err == nil
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return p, false, err
	}
	p.Revision, p.Checksum = uint64(st.Revision), st.Checksum
	cur, err := r.data.Find(ctx, bson.D{{Key: "cluster", Value: cluster},
		{Key: "inventoryNamespace", Value: inv.Namespace}, {Key: "inventoryName", Value: inv.Name}})
	if err != nil {
		return p, false, err
	}
	var docs []struct {
		Row bson.Raw `bson:"row"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return p, false, err
	}
	for _, d := range docs {
		row, err := decodeRow(d.Row)
		if err != nil {
			return p, false, err
		}
		p.Rows = append(p.Rows, row)
	}
	slices.SortFunc(p.Rows, busv1.CompareRows)
	return p, found || len(p.Rows) > 0, nil
}

// decodeRow reads a stored row the way a consumer would: as relaxed
// extended JSON, with attribute keys unescaped.
func decodeRow(raw bson.Raw) (busv1.Row, error) {
	js, err := bson.MarshalExtJSON(raw, false, false)
	if err != nil {
		return busv1.Row{}, err
	}
	var r busv1.Row
	if err := json.Unmarshal(js, &r); err != nil {
		return busv1.Row{}, err
	}
	if r.Attributes != nil {
		r.Attributes = unescapeValue(r.Attributes).(map[string]any)
	}
	return r, nil
}

// unescapeValue reverses the key escaping of encodeValue.
func unescapeValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[UnescapeKey(k)] = unescapeValue(e)
		}
		return out
	case []any:
		for i, e := range v {
			v[i] = unescapeValue(e)
		}
		return v
	default:
		return v
	}
}

// envelope builds the snapshot of rows at revision for cluster.
func envelope(t testing.TB, cluster string, inv busv1.NamespacedName, revision uint64, rows ...busv1.Row) sink.Snapshot {
	t.Helper()
	env, err := snapshot.Envelope(inv, revision, 1, rows)
	if err != nil {
		t.Fatalf("build envelope: %v", err)
	}
	return sink.Snapshot{Envelope: env.Stamp(cluster, time.Now())}
}

// podRow is a row of a Pod named name with attributes.
func podRow(name string, attrs map[string]any) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: name,
		UID: "uid-" + name, Version: "v1", Kind: "Pod", Attributes: attrs}
}

// index is what the tests check of an index.
type index struct {
	Unique bool
	Fields []string
}

// indexes returns the indexes of r's data collection by name.
func indexes(t testing.TB, r reader) map[string]index {
	t.Helper()
	cur, err := r.data.Indexes().List(context.Background())
	if err != nil {
		t.Fatalf("list indexes: %v", err)
	}
	var infos []indexInfo
	if err := cur.All(context.Background(), &infos); err != nil {
		t.Fatalf("list indexes: %v", err)
	}
	out := map[string]index{}
	for _, i := range infos {
		var fields []string
		for _, e := range i.Key {
			fields = append(fields, e.Key)
		}
		out[i.Name] = index{Unique: i.Unique, Fields: fields}
	}
	return out
}
