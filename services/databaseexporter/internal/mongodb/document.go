package mongodb

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// identity is a document's _id: the cluster, the inventory and the row
// identity (CONTRACT.md), always in this field order so that equal
// identities are equal sub-documents.
func identity(env busv1.Envelope, k busv1.RowKey) bson.D {
	return bson.D{
		{Key: "cluster", Value: env.Cluster},
		{Key: "inventoryNamespace", Value: env.Inventory.Namespace},
		{Key: "inventoryName", Value: env.Inventory.Name},
		{Key: "targetNamespace", Value: k.TargetNamespace},
		{Key: "targetName", Value: k.TargetName},
		{Key: "uid", Value: k.UID},
	}
}

// scope is the filter of one (cluster, inventory)'s documents, on the
// indexed top-level copies.
func scope(env busv1.Envelope) bson.D {
	return bson.D{
		{Key: "cluster", Value: env.Cluster},
		{Key: "inventoryNamespace", Value: env.Inventory.Namespace},
		{Key: "inventoryName", Value: env.Inventory.Name},
	}
}

// document is the stored document of row r of env.
func document(env busv1.Envelope, r busv1.Row) bson.D {
	return bson.D{
		{Key: "_id", Value: identity(env, r.Key())},
		{Key: "cluster", Value: env.Cluster},
		{Key: "inventoryNamespace", Value: env.Inventory.Namespace},
		{Key: "inventoryName", Value: env.Inventory.Name},
		{Key: "revision", Value: sink.Revision64(env.Revision)},
		{Key: "checksum", Value: env.Checksum},
		{Key: "exportedAt", Value: env.ExportedAt},
		{Key: "row", Value: bson.D{
			{Key: "targetNamespace", Value: r.TargetNamespace},
			{Key: "targetName", Value: r.TargetName},
			{Key: "namespace", Value: r.Namespace},
			{Key: "name", Value: r.Name},
			{Key: "uid", Value: r.UID},
			{Key: "group", Value: r.Group},
			{Key: "version", Value: r.Version},
			{Key: "kind", Value: r.Kind},
			{Key: "attributes", Value: encodeValue(r.Attributes)},
		}},
	}
}

// upsert replaces (or inserts) the document of row r.
func upsert(env busv1.Envelope, r busv1.Row) mongo.WriteModel {
	doc := document(env, r)
	return mongo.NewReplaceOneModel().SetFilter(bson.D{doc[0]}).SetReplacement(doc).SetUpsert(true)
}

// Field names MongoDB-compatible servers refuse or cannot query (a '.'
// anywhere, a leading '$', NUL) are escaped reversibly: '%' first, so that
// EscapeKey(k) is unique for each k.
var (
	keyEscaper   = strings.NewReplacer("%", "%25", ".", "%2E", "\x00", "%00")
	keyUnescaper = strings.NewReplacer("%25", "%", "%2E", ".", "%24", "$", "%00", "\x00")
)

// EscapeKey returns the field name an attribute map key is stored under:
// '%' becomes %25, '.' %2E, NUL %00 and a leading '$' %24. Keys without
// those characters are stored unchanged.
func EscapeKey(k string) string {
	if !strings.ContainsAny(k, "%.\x00") && !strings.HasPrefix(k, "$") {
		return k
	}
	k = keyEscaper.Replace(k)
	if strings.HasPrefix(k, "$") {
		k = "%24" + k[1:]
	}
	return k
}

// UnescapeKey reverses EscapeKey.
func UnescapeKey(k string) string {
	if !strings.Contains(k, "%") {
		return k
	}
	return keyUnescaper.Replace(k)
}

// encodeValue converts a JSON-shaped attribute value to BSON: maps become
// documents with escaped keys in sorted order, lists arrays, scalars stay.
func encodeValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		d := make(bson.D, 0, len(v))
		for _, k := range keys {
			d = append(d, bson.E{Key: EscapeKey(k), Value: encodeValue(v[k])})
		}
		return d
	case []any:
		a := make(bson.A, len(v))
		for i, e := range v {
			a[i] = encodeValue(e)
		}
		return a
	default:
		return v
	}
}
