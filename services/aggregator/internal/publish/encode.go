package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// encode returns the event's JSON: the header with the envelope and the
// delta spliced in when they fit, references to stored objects otherwise.
func (p *Publisher) encode(ctx context.Context, ev *busv1.SnapshotEvent, c Content) ([]byte, Receipt, error) {
	ev.Envelope, ev.EnvelopeRef, ev.ManifestRef, ev.Delta, ev.DeltaRef = nil, nil, nil, nil, nil
	var r Receipt
	head, err := json.Marshal(ev)
	if err != nil {
		return nil, r, fmt.Errorf("encode snapshot %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	size := len(head) + 64
	inline := c.Envelope != nil && size+len(c.Envelope) <= p.limit
	switch {
	case inline:
		size += len(c.Envelope)
		r.Body.Envelope = c.Envelope
	case c.Reuse != nil && (c.Reuse.ManifestRef != nil || c.Reuse.EnvelopeRef != nil):
		r.Body = Body{ManifestRef: c.Reuse.ManifestRef, EnvelopeRef: c.Reuse.EnvelopeRef}
	case c.Reuse != nil:
		// A periodic re-export of a revision its change event carried
		// inline: the envelope is stored once, as an object every later
		// periodic event references, instead of repeated in each.
		ref, n, err := p.w.PutAddressed(ctx, bus.OwnerOf(ev.Inventory).Names(bus.EnvelopeBlobObjectName), c.Reuse.Envelope)
		if err != nil {
			return nil, r, err
		}
		r.Body.EnvelopeRef, r.Written = ref, r.Written+n
	default:
		if r.Body.ManifestRef, err = c.Manifest(ctx); err != nil {
			return nil, r, err
		}
	}
	ev.ManifestRef, ev.EnvelopeRef = r.Body.ManifestRef, r.Body.EnvelopeRef
	delta := c.Delta
	if delta != nil && size+len(delta) > p.limit {
		ref, n, err := p.w.PutJSON(ctx, bus.OwnerOf(ev.Inventory).Names(bus.DeltaObjectName), json.RawMessage(delta))
		if err != nil {
			return nil, r, err
		}
		ev.DeltaRef, r.Written, delta = ref, r.Written+n, nil
	}
	if head, err = json.Marshal(ev); err != nil {
		return nil, r, fmt.Errorf("encode snapshot %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	out := bytes.NewBuffer(make([]byte, 0, len(head)+len(r.Body.Envelope)+len(delta)+32))
	out.Write(head[:len(head)-1])
	if r.Body.Envelope != nil {
		out.WriteString(`,"envelope":`)
		out.Write(r.Body.Envelope)
	}
	if delta != nil {
		out.WriteString(`,"delta":`)
		out.Write(delta)
	}
	out.WriteByte('}')
	return out.Bytes(), r, nil
}
