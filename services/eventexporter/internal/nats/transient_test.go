package nats_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/sink"
)

func TestUnreachableServerIsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "nats://" + l.Addr().String()
	_ = l.Close() // nothing listens there any more
	s := newSink(t, private, sinkConfig(t, spec(url, "t", "T")), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Write(ctx, snap(t, 1, row("a", 1))); err == nil || sink.IsPermanent(err) {
		t.Fatalf("write to an unreachable server: %v, want a transient error", err)
	}
	if err := s.Check(ctx); err == nil || sink.IsPermanent(err) {
		t.Fatalf("check of an unreachable server: %v, want a transient error", err)
	}
}

func TestCancelledContextStopsAConnect(t *testing.T) {
	// A listener that accepts and never answers: the connect hangs until
	// the context ends.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	s := newSink(t, private, sinkConfig(t, spec("nats://"+l.Addr().String(), "t", "T")), nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if err := s.Write(ctx, snap(t, 1, row("a", 1))); !errors.Is(err, context.Canceled) {
		t.Fatalf("write cancelled while connecting: %v, want context.Canceled", err)
	}
}
