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

func TestDeletedStreamIsTransientThenRecreated(t *testing.T) {
	p := startNATS(t, nil)
	s := newSink(t, private, sinkConfig(t, spec(p.url, "gone.events", "GONE")), nil)
	write(t, s, snap(t, 1, row("a", 1)))
	if err := p.js.DeleteStream(context.Background(), "GONE"); err != nil {
		t.Fatal(err)
	}
	err := s.Write(context.Background(), snap(t, 2, row("a", 2)))
	if err == nil || sink.IsPermanent(err) {
		t.Fatalf("publish after the stream was deleted: %v, want a transient error (no responders)", err)
	}
	write(t, s, snap(t, 2, row("a", 2))) // the retry finds the stream missing and creates it again
	if got := stored(t, p.js, "GONE"); len(got) != 1 {
		t.Fatalf("the recreated stream holds %d messages, want 1", len(got))
	}
}
