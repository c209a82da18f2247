package mongodb

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

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
