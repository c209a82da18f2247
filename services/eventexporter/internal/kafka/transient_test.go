package kafka_test

import (
	"context"
	"net"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/sink"
)

func TestUnreachableBrokerIsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there any more
	s := newSink(t, private, sinkConfig(t, spec(addr, "t", "")), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = s.Write(ctx, snap(t, web, 1, row("a", 1)))
	if err == nil || sink.IsPermanent(err) {
		t.Fatalf("write to an unreachable broker: %v, want a transient error", err)
	}
	if err := s.Check(ctx); err == nil || sink.IsPermanent(err) {
		t.Fatalf("check of an unreachable broker: %v, want a transient error", err)
	}
}
