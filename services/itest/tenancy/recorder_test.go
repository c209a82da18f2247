package tenancy

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"sync"
	"testing"
	"time"
)

// recorder is an endpoint a tenant controls: it keeps every byte a client
// sends it and counts connections. The sweep reads every recorder.
type recorder struct {
	name string
	// addr is host:port.
	addr string
	mu   sync.Mutex
	data bytes.Buffer
	// conns counts accepted connections.
	conns int
}

var recorders struct {
	mu  sync.Mutex
	all []*recorder
}

// received returns a copy of what the recorder received.
func (r *recorder) received() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.data.Bytes())
}

// connections returns how many connections the recorder accepted.
func (r *recorder) connections() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns
}

func (r *recorder) write(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.data.Write(p)
}

func (r *recorder) accepted() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.conns++
}

func register(r *recorder) *recorder {
	recorders.mu.Lock()
	defer recorders.mu.Unlock()
	recorders.all = append(recorders.all, r)
	return r
}

// allRecorders returns every recorder started so far.
func allRecorders() []*recorder {
	recorders.mu.Lock()
	defer recorders.mu.Unlock()
	return append([]*recorder(nil), recorders.all...)
}

// startHTTPRecorder serves HTTP on ip, recording each request in full
// (request line, headers, body) and answering with respond (nil: 404).
func startHTTPRecorder(name, ip string, respond http.HandlerFunc) (*recorder, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Errorf("listen for recorder %s: %w", name, err)
	}
	r := register(&recorder{name: name, addr: l.Addr().String()})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		dump, _ := httputil.DumpRequest(req, true)
		r.write(dump)
		if respond == nil {
			http.NotFound(w, req)
			return
		}
		respond(w, req)
	}))
	_ = srv.Listener.Close()
	srv.Listener = l
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.accepted()
		}
	}
	srv.Start()
	onStop(srv.Close)
	return r, nil
}

// startTCPRecorder accepts TCP connections on ip, runs greet on each (which
// speaks just enough of a protocol to make the client send its
// credentials) and records every byte the client sends until it closes or
// goes quiet.
func startTCPRecorder(name, ip string, greet func(net.Conn, io.Reader) error) (*recorder, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Errorf("listen for recorder %s: %w", name, err)
	}
	r := register(&recorder{name: name, addr: l.Addr().String()})
	onStop(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			r.accepted()
			go r.serve(c, greet)
		}
	}()
	return r, nil
}

func (r *recorder) serve(c net.Conn, greet func(net.Conn, io.Reader) error) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	in := io.TeeReader(c, writerFunc(func(p []byte) (int, error) { r.write(p); return len(p), nil }))
	if greet != nil && greet(c, in) != nil {
		return
	}
	_, _ = io.Copy(io.Discard, in)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// lazyRecorder starts a recorder once, on first use.
func lazyRecorder(start func() (*recorder, error)) func(t *testing.T) *recorder {
	var once sync.Once
	var r *recorder
	var err error
	return func(t *testing.T) *recorder {
		t.Helper()
		once.Do(func() { r, err = start() })
		if err != nil {
			t.Fatalf("start recorder: %v", err)
		}
		return r
	}
}
