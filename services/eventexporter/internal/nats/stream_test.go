package nats_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

// message is what TestAStreamedFullWritePublishesTheLoadedMessages
// compares of a stored message.
type message struct {
	Data   string
	Header nats.Header
}

// TestAStreamedFullWritePublishesTheLoadedMessages publishes one snapshot
// loaded and, through a second sink on another stream, as the runtime hands
// it to a RowStreamer (rows read from Snapshot.Rows): the messages, their
// payloads and headers, must be the same, whole and in parts.
func TestAStreamedFullWritePublishesTheLoadedMessages(t *testing.T) {
	tests := []struct {
		name       string
		maxPayload int32
		binding    int64
	}{
		{"a snapshot that fits is one message", 0, 0},
		{"the binding's maxExportBytes splits the envelope", 0, 1500},
		{"the server's max_payload splits the envelope when the binding sets no limit", 2048, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startNATS(t, func(o *server.Options) { o.MaxPayload = tt.maxPayload })
			var rows []busv1.Row
			for j := range 30 {
				rows = append(rows, row(fmt.Sprintf("u%02d", j), "<a href=\"x&y\">\u2028é</a>"+strings.Repeat("x", 60)))
			}
			sn := snap(t, 4, rows...)
			sn.MaxExportBytes = tt.binding
			var got [2][]message
			for k, mode := range []string{"loaded", "streamed"} {
				stream := fmt.Sprintf("%s_%d", strings.ToUpper(mode), i)
				s := newSink(t, private, sinkConfig(t, spec(p.url, mode+".events", stream)), nil)
				w := sn
				if mode == "streamed" {
					w = sinktest.Streamed(sn)
				}
				write(t, s, w)
				msgs, err := messages(context.Background(), p.js, stream)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range msgs {
					m.Header.Del("Nats-Expected-Stream")
					got[k] = append(got[k], message{Data: string(m.Data), Header: m.Header})
				}
			}
			if tt.binding > 0 || tt.maxPayload > 0 {
				if len(got[0]) < 3 {
					t.Fatalf("%d messages, want several parts", len(got[0]))
				}
			}
			if d := cmp.Diff(got[0], got[1]); d != "" {
				t.Fatalf("messages (-loaded +streamed):\n%s", d)
			}
		})
	}
}
