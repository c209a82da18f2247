package nats_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
	natssink "kollect.dev/kollect/services/eventexporter/internal/nats"
)

// TestAStreamedFullWriteHoldsAPartNotTheInventory publishes snapshots of n
// and 4n rows streamed from a real bus to a NATS server run as its own
// process (its store is not counted in the test's heap): the heap the write
// needs must not grow with the inventory (KOLLECT_STREAM_ROWS=250000 runs it
// at a million rows). Each write is checked to end with the last of its
// parts.
func TestAStreamedFullWriteHoldsAPartNotTheInventory(t *testing.T) {
	url := testenv.StartNATSProcess(t)
	s := newSink(t, private, sinkConfig(t, spec(url, "heap.events", "HEAP")), nil)
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	sinktest.StreamedWriteHeap(t, web, 64<<20, func(sn sink.Snapshot) error {
		return s.Write(context.Background(), sn)
	}, func(sn sink.Snapshot) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		st, err := js.Stream(ctx, "HEAP")
		if err != nil {
			t.Fatal(err)
		}
		last, err := st.GetLastMsgForSubject(ctx, "heap.events")
		if err != nil {
			t.Fatal(err)
		}
		part := last.Header.Get(natssink.HeaderPart)
		i, n, _ := strings.Cut(part, "/")
		if last.Header.Get(natssink.HeaderRevision) != fmt.Sprint(sn.Envelope.Revision) || n == "" || fmt.Sprint(mustAtoi(t, i)+1) != n {
			t.Fatalf("the last message is revision %s part %q, want the last part of revision %d",
				last.Header.Get(natssink.HeaderRevision), part, sn.Envelope.Revision)
		}
		t.Logf("revision %d: %s parts", sn.Envelope.Revision, n)
	})
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("part index %q: %v", s, err)
	}
	return n
}
