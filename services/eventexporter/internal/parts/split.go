package parts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Part is one message of a snapshot: the envelope sent and its JSON.
type Part struct {
	// Envelope is the part's envelope: the snapshot's identity, PartIndex
	// and PartTotal (both zero when the snapshot is not split) and a
	// contiguous slice of the snapshot's items.
	Envelope busv1.Envelope
	// JSON is the serialised Envelope, at most the limit Split was given.
	JSON []byte
}

// Label returns "i/n" (zero-based index, total) for a part of a split
// snapshot and "" for an unsplit one.
func (p Part) Label() string {
	if p.Envelope.PartTotal == 0 {
		return ""
	}
	return strconv.Itoa(p.Envelope.PartIndex) + "/" + strconv.Itoa(p.Envelope.PartTotal)
}

// Split returns env as one Part when its JSON fits in maxBytes (or maxBytes
// is not positive), else as parts: envelopes with env's identity
// (schemaVersion, checksum, revision, generation, cluster, inventory,
// itemCount, exportedAt), PartIndex 0..PartTotal-1 and contiguous slices of
// env.Items in order, each serialising to at most maxBytes. A row too large
// to fit in a part on its own is a sink.Permanent error naming the row:
// nothing is skipped silently.
//
// Each row is encoded once: a part's JSON is its envelope encoded without
// items with the encoded rows spliced in, byte for byte what encoding the
// part would give.
func Split(env busv1.Envelope, maxBytes int64) ([]Part, error) {
	rows, err := encodeRows(env.Items)
	if err != nil {
		return nil, err
	}
	whole, err := assemble(env, rows)
	if err != nil {
		return nil, err
	}
	if maxBytes <= 0 || int64(len(whole)) <= maxBytes {
		return []Part{{Envelope: env, JSON: whole}}, nil
	}
	bare := env
	wide := max(len(env.Items), 1) // part numbers as wide as they can get
	bare.PartIndex, bare.PartTotal, bare.Items = wide, wide, nil
	head, err := json.Marshal(bare)
	if err != nil {
		return nil, fmt.Errorf("encode envelope %s: %w", env.Inventory, err)
	}
	overhead := int64(len(head)) // with "[]"
	if overhead > maxBytes {
		return nil, sink.Permanent(fmt.Errorf("split %s into parts: maxExportBytes %d is smaller than the envelope without items (%d bytes)",
			env.Inventory, maxBytes, overhead))
	}
	groups, err := pack(env, rows, overhead, maxBytes)
	if err != nil {
		return nil, err
	}
	out := make([]Part, 0, len(groups))
	for i, g := range groups {
		p := env
		p.PartIndex, p.PartTotal, p.Items = i, len(groups), env.Items[g[0]:g[1]]
		b, err := assemble(p, rows[g[0]:g[1]])
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > maxBytes { // the size estimate is exact; this guards it
			return nil, fmt.Errorf("encode part %d of %s: %d bytes exceed %d", i, env.Inventory, len(b), maxBytes)
		}
		out = append(out, Part{Envelope: p, JSON: b})
	}
	return out, nil
}

func encodeRows(items []busv1.Row) ([][]byte, error) {
	rows := make([][]byte, len(items))
	for i, r := range items {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("encode row %s: %w", RowName(r), err)
		}
		rows[i] = b
	}
	return rows, nil
}

// itemsTail is how an envelope without items ends: items is its last field.
var itemsTail = []byte(`"items":[]}`)

// assemble returns the JSON of env whose items encode to rows.
func assemble(env busv1.Envelope, rows [][]byte) ([]byte, error) {
	items := env.Items
	env.Items = nil
	head, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("encode envelope %s: %w", env.Inventory, err)
	}
	if !bytes.HasSuffix(head, itemsTail) { // the envelope's layout changed: encode it whole
		env.Items = items
		return json.Marshal(env)
	}
	size := len(head) + len(rows)
	for _, r := range rows {
		size += len(r)
	}
	out := make([]byte, 0, size)
	out = append(out, head[:len(head)-2]...) // up to "["
	for i, r := range rows {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, r...)
	}
	return append(out, ']', '}'), nil
}

// pack groups rows greedily into [start, end) ranges whose part JSON stays
// within maxBytes: overhead (the bare part with "[]") plus the rows joined
// by ",".
func pack(env busv1.Envelope, rows [][]byte, overhead, maxBytes int64) ([][2]int, error) {
	var groups [][2]int
	start, size := 0, overhead
	for i, b := range rows {
		n := int64(len(b))
		if overhead+n > maxBytes {
			return nil, sink.Permanent(fmt.Errorf("split %s into parts: row %s is %d bytes, larger than maxExportBytes %d can hold with the envelope (%d bytes)",
				env.Inventory, RowName(env.Items[i]), n, maxBytes, overhead))
		}
		sep := int64(0)
		if i > start {
			sep = 1
		}
		if size+sep+n > maxBytes {
			groups = append(groups, [2]int{start, i})
			start, size, sep = i, overhead, 0
		}
		size += sep + n
	}
	return append(groups, [2]int{start, len(rows)}), nil
}

// RowName names a row in messages: target, source object and uid.
func RowName(r busv1.Row) string {
	src := r.Name
	if r.Namespace != "" {
		src = r.Namespace + "/" + r.Name
	}
	tgt := r.TargetName
	if r.TargetNamespace != "" {
		tgt = r.TargetNamespace + "/" + r.TargetName
	}
	return fmt.Sprintf("%s %s (target %s, uid %s)", r.Kind, src, tgt, r.UID)
}
