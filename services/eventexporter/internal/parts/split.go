package parts

import (
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
func Split(env busv1.Envelope, maxBytes int64) ([]Part, error) {
	whole, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("encode envelope %s: %w", env.Inventory, err)
	}
	if maxBytes <= 0 || int64(len(whole)) <= maxBytes {
		return []Part{{Envelope: env, JSON: whole}}, nil
	}
	overhead, err := partOverhead(env)
	if err != nil {
		return nil, err
	}
	if overhead+2 > maxBytes {
		return nil, sink.Permanent(fmt.Errorf("split %s into parts: maxExportBytes %d is smaller than the envelope without items (%d bytes)",
			env.Inventory, maxBytes, overhead+2))
	}
	groups, err := pack(env, overhead, maxBytes)
	if err != nil {
		return nil, err
	}
	out := make([]Part, 0, len(groups))
	for i, g := range groups {
		p := env
		p.PartIndex, p.PartTotal, p.Items = i, len(groups), env.Items[g[0]:g[1]]
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encode part %d of %s: %w", i, env.Inventory, err)
		}
		if int64(len(b)) > maxBytes { // the size estimate is exact; this guards it
			return nil, fmt.Errorf("encode part %d of %s: %d bytes exceed %d", i, env.Inventory, len(b), maxBytes)
		}
		out = append(out, Part{Envelope: p, JSON: b})
	}
	return out, nil
}

// partOverhead is the size of a part envelope without items, with part
// numbers as wide as they can get (at most one part per item).
func partOverhead(env busv1.Envelope) (int64, error) {
	p := env
	wide := max(len(env.Items), 1)
	p.PartIndex, p.PartTotal, p.Items = wide, wide, nil
	b, err := json.Marshal(p)
	if err != nil {
		return 0, fmt.Errorf("encode envelope %s: %w", env.Inventory, err)
	}
	return int64(len(b)) - 2, nil // without "[]"
}

// pack groups items greedily into [start, end) ranges whose part JSON stays
// within maxBytes: overhead + "[" + rows joined by "," + "]".
func pack(env busv1.Envelope, overhead, maxBytes int64) ([][2]int, error) {
	var groups [][2]int
	start, size := 0, overhead+2
	for i, r := range env.Items {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("encode row %s: %w", RowName(r), err)
		}
		n := int64(len(b))
		if overhead+2+n > maxBytes {
			return nil, sink.Permanent(fmt.Errorf("split %s into parts: row %s is %d bytes, larger than maxExportBytes %d can hold with the envelope (%d bytes)",
				env.Inventory, RowName(r), n, maxBytes, overhead+2))
		}
		sep := int64(0)
		if i > start {
			sep = 1
		}
		if size+sep+n > maxBytes {
			groups = append(groups, [2]int{start, i})
			start, size, sep = i, overhead+2, 0
		}
		size += sep + n
	}
	return append(groups, [2]int{start, len(env.Items)}), nil
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
