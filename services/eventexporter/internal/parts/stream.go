package parts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Stream sends, in order, the parts Split returns for s's full envelope.
// A loaded snapshot is split as Split does. A streamed one (a
// sink.RowStreamer's full write) is read from s.Rows: every part's header
// carries the part total (partTotal, the "i/n" header), which depends on
// the rows' sizes, not only on their count, so a first pass measures the
// rows and groups them into parts and a second assembles and sends one part
// at a time. At most one part's rows are held, and a snapshot that fits in
// one message is read once. maxBytes must be positive for a streamed
// snapshot.
//
// The parts of a streamed snapshot have Envelope.Items nil; their JSON is
// byte for byte what Split gives for the loaded envelope: the rows as the
// bus holds them (canonical JSON) with <, > and & escaped as encoding/json
// escapes them.
func Stream(ctx context.Context, s sink.Snapshot, maxBytes int64, send func(Part) error) error {
	if s.Loaded() {
		ps, err := Split(s.Envelope, maxBytes)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if err := send(p); err != nil {
				return err
			}
		}
		return nil
	}
	if maxBytes <= 0 {
		return fmt.Errorf("stream %s: no message size limit", s.Envelope.Inventory)
	}
	env := s.Envelope
	env.Items = nil
	pl, err := plan(ctx, s, env, maxBytes)
	if err != nil {
		return err
	}
	if pl.whole != nil {
		return send(Part{Envelope: env, JSON: pl.whole})
	}
	return sendParts(ctx, s, env, pl, send)
}

// layout is the outcome of the first pass over a streamed snapshot: its
// JSON when it fits in one message, else the parts' row ranges and sizes.
type layout struct {
	whole []byte
	ends  []int   // the end (exclusive) of each part's rows
	sizes []int64 // each part's JSON size
}

// plan reads the rows once: it keeps them while the whole envelope fits in
// maxBytes and packs them into parts as pack does.
func plan(ctx context.Context, s sink.Snapshot, env busv1.Envelope, maxBytes int64) (layout, error) {
	head, err := openHead(env)
	if err != nil {
		return layout{}, err
	}
	bare := env
	wide := max(env.ItemCount, 1) // part numbers as wide as they can get
	bare.PartIndex, bare.PartTotal = wide, wide
	bareJSON, err := json.Marshal(bare)
	if err != nil {
		return layout{}, fmt.Errorf("encode envelope %s: %w", env.Inventory, err)
	}
	overhead := int64(len(bareJSON)) // with "[]"
	var (
		pl       layout
		whole    = head // "…"items":[" then the rows joined by ","
		fits     = true
		tooLarge error // a row no part can hold; an error only if the snapshot is split
		n        int
		start    int
		size     = overhead
	)
	for raw, err := range s.Rows(ctx) {
		if err != nil {
			return layout{}, err
		}
		l := escapedLen(raw)
		if fits {
			if n > 0 {
				whole = append(whole, ',')
			}
			whole = appendHTMLEscaped(whole, raw)
			fits = int64(len(whole)+2) <= maxBytes
			if !fits {
				whole = nil
			}
		}
		if overhead+l > maxBytes && tooLarge == nil {
			tooLarge = sink.Permanent(fmt.Errorf("split %s into parts: row %s is %d bytes, larger than maxExportBytes %d can hold with the envelope (%d bytes)",
				env.Inventory, rawRowName(raw), l, maxBytes, overhead))
		}
		sep := int64(0)
		if n > start {
			sep = 1
		}
		if n > start && size+sep+l > maxBytes {
			pl.ends, pl.sizes = append(pl.ends, n), append(pl.sizes, size)
			start, size, sep = n, overhead, 0
		}
		size += sep + l
		n++
	}
	if n != env.ItemCount {
		return layout{}, fmt.Errorf("the snapshot of %s streamed %d rows, its header says %d", env.Inventory, n, env.ItemCount)
	}
	if fits {
		return layout{whole: append(whole, ']', '}')}, nil
	}
	if overhead > maxBytes {
		return layout{}, sink.Permanent(fmt.Errorf("split %s into parts: maxExportBytes %d is smaller than the envelope without items (%d bytes)",
			env.Inventory, maxBytes, overhead))
	}
	if tooLarge != nil {
		return layout{}, tooLarge
	}
	pl.ends, pl.sizes = append(pl.ends, n), append(pl.sizes, size)
	return pl, nil
}

// sendParts reads the rows a second time and sends the parts pl planned,
// each assembled as its last row arrives.
func sendParts(ctx context.Context, s sink.Snapshot, env busv1.Envelope, pl layout, send func(Part) error) error {
	var (
		part Part
		i, n int
	)
	for raw, err := range s.Rows(ctx) {
		if err != nil {
			return err
		}
		if i == len(pl.ends) {
			return fmt.Errorf("the snapshot of %s streamed more rows the second time than the first", env.Inventory)
		}
		if part.JSON == nil {
			part.Envelope = env
			part.Envelope.PartIndex, part.Envelope.PartTotal = i, len(pl.ends)
			head, err := openHead(part.Envelope)
			if err != nil {
				return err
			}
			part.JSON = append(make([]byte, 0, pl.sizes[i]), head...)
		} else {
			part.JSON = append(part.JSON, ',')
		}
		part.JSON = appendHTMLEscaped(part.JSON, raw)
		if n++; n < pl.ends[i] {
			continue
		}
		part.JSON = append(part.JSON, ']', '}')
		if int64(len(part.JSON)) > pl.sizes[i] { // sizes are bounds on the parts; this guards them
			return fmt.Errorf("encode part %d of %s: %d bytes exceed the %d planned", i, env.Inventory, len(part.JSON), pl.sizes[i])
		}
		if err := send(part); err != nil {
			return err
		}
		part, i = Part{}, i+1
	}
	if i != len(pl.ends) {
		return fmt.Errorf("the snapshot of %s streamed %d rows the second time, %d the first", env.Inventory, n, pl.ends[len(pl.ends)-1])
	}
	return nil
}

// openHead is the JSON of env (whose Items are nil) up to and including
// the "[" of its items.
func openHead(env busv1.Envelope) ([]byte, error) {
	head, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("encode envelope %s: %w", env.Inventory, err)
	}
	if !bytes.HasSuffix(head, itemsTail) {
		return nil, fmt.Errorf("encode envelope %s: the header does not end with its items (%.40q)", env.Inventory, head)
	}
	return head[:len(head)-2], nil
}

// escapedLen is the length of raw once appendHTMLEscaped.
func escapedLen(raw []byte) int64 {
	n := int64(len(raw))
	for _, c := range raw {
		if c == '<' || c == '>' || c == '&' {
			n += 5
		}
	}
	return n
}

// AppendRow appends a row's canonical JSON raw (as Snapshot.Rows yields
// it) as json.Marshal encodes the row: what Split and the Kafka sink's
// row records hold.
func AppendRow(b, raw []byte) []byte { return appendHTMLEscaped(b, raw) }

// appendHTMLEscaped appends the canonical JSON raw with <, > and & escaped
// as encoding/json escapes them by default, so that it is what json.Marshal
// gives for the row (the canonical encoding escapes U+2028 and U+2029
// already).
func appendHTMLEscaped(b, raw []byte) []byte {
	start := 0
	for i, c := range raw {
		if c == '<' || c == '>' || c == '&' {
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
			start = i + 1
		}
	}
	return append(b, raw[start:]...)
}

const hexDigit = "0123456789abcdef"

// rawRowName names the row raw encodes (RowName), or says it cannot.
func rawRowName(raw []byte) string {
	var r busv1.Row
	if err := json.Unmarshal(raw, &r); err != nil {
		return "(undecodable: " + err.Error() + ")"
	}
	return RowName(r)
}
