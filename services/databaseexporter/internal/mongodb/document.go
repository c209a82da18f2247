package mongodb

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// identityFields are the top-level fields of a document that identify its
// row, in the order of the unique index and of the _id string.
var identityFields = []string{"cluster", "inventoryNamespace", "inventoryName", "targetNamespace", "targetName", "uid"}

// idEscaper escapes the separator of the _id string, '%' first so that the
// escaping is reversible and distinct identities never share an _id.
var idEscaper = strings.NewReplacer("%", "%25", "/", "%2F")

// documentID is the _id of the document of row k of env's inventory: the
// identity fields joined by '/', each with '%' written %25 and '/' %2F. A
// string _id is what every MongoDB-compatible server looks up by index
// (FerretDB pushes down only an _id equality on a string or ObjectID).
func documentID(env busv1.Envelope, k busv1.RowKey) string {
	parts := [...]string{env.Cluster, env.Inventory.Namespace, env.Inventory.Name, k.TargetNamespace, k.TargetName, k.UID}
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('/')
		}
		if strings.ContainsAny(p, "%/") {
			p = idEscaper.Replace(p)
		}
		b.WriteString(p)
	}
	return b.String()
}

// scope is the filter of one (cluster, inventory)'s documents, on the
// indexed top-level fields that documents of both layouts carry.
func scope(env busv1.Envelope) bson.D {
	return bson.D{
		{Key: "cluster", Value: env.Cluster},
		{Key: "inventoryNamespace", Value: env.Inventory.Namespace},
		{Key: "inventoryName", Value: env.Inventory.Name},
	}
}

// byID is the filter of the document with _id id.
func byID(id string) bson.D { return bson.D{{Key: "_id", Value: id}} }

// encodeRow is the BSON of the row field of r's document; a full write
// compares it with the stored bytes to skip unchanged rows.
func encodeRow(r busv1.Row) (bson.Raw, error) {
	raw, err := bson.Marshal(bson.D{
		{Key: "targetNamespace", Value: r.TargetNamespace},
		{Key: "targetName", Value: r.TargetName},
		{Key: "namespace", Value: r.Namespace},
		{Key: "name", Value: r.Name},
		{Key: "uid", Value: r.UID},
		{Key: "group", Value: r.Group},
		{Key: "version", Value: r.Version},
		{Key: "kind", Value: r.Kind},
		{Key: "attributes", Value: encodeValue(r.Attributes)},
	})
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("encode row %s/%s/%s: %w", r.TargetNamespace, r.TargetName, r.UID, err))
	}
	return raw, nil
}

// document is the stored document of row r of env with _id id and row the
// encoded row.
func document(env busv1.Envelope, id string, r busv1.Row, row bson.Raw) bson.D {
	return bson.D{
		{Key: "_id", Value: id},
		{Key: "cluster", Value: env.Cluster},
		{Key: "inventoryNamespace", Value: env.Inventory.Namespace},
		{Key: "inventoryName", Value: env.Inventory.Name},
		{Key: "targetNamespace", Value: r.TargetNamespace},
		{Key: "targetName", Value: r.TargetName},
		{Key: "uid", Value: r.UID},
		{Key: "revision", Value: sink.Revision64(env.Revision)},
		{Key: "checksum", Value: env.Checksum},
		{Key: "exportedAt", Value: env.ExportedAt},
		{Key: "row", Value: row},
	}
}
