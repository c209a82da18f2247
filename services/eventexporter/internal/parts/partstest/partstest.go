package partstest

import (
	"encoding/json"
	"fmt"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

// Message is one published envelope or part of an inventory.
type Message struct {
	// Where names the message in errors ("record at offset 4").
	Where string
	// Data is the message's payload, an envelope as JSON.
	Data []byte
}

// LastEnvelope returns the projection of the last complete envelope of
// msgs: an envelope sent whole, or one whose every part arrived; false
// when there is none.
func LastEnvelope(msgs []Message) (sinktest.Projection, bool, error) {
	var last *busv1.Envelope
	pending := map[string][]busv1.Envelope{} // revision/checksum -> parts seen
	for _, m := range msgs {
		var env busv1.Envelope
		if err := json.Unmarshal(m.Data, &env); err != nil {
			return sinktest.Projection{}, false, fmt.Errorf("decode %s: %w", m.Where, err)
		}
		if env.PartTotal == 0 {
			last = &env
			continue
		}
		id := fmt.Sprintf("%d/%s", env.Revision, env.Checksum)
		pending[id] = append(pending[id], env)
		if got := pending[id]; len(got) == env.PartTotal {
			slices.SortFunc(got, func(a, b busv1.Envelope) int { return a.PartIndex - b.PartIndex })
			whole := got[0]
			whole.PartIndex, whole.PartTotal, whole.Items = 0, 0, nil
			for _, p := range got {
				whole.Items = append(whole.Items, p.Items...)
			}
			last = &whole
			delete(pending, id)
		}
	}
	if last == nil {
		return sinktest.Projection{}, false, nil
	}
	return sinktest.Projection{Revision: last.Revision, Checksum: last.Checksum, Rows: last.Items}, true, nil
}
