package git

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/storage/memory"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// acceptCounter is a TCP listener on loopback that closes every
// connection it accepts and reports its remote address, in order.
type acceptCounter struct {
	ln       net.Listener
	accepted chan string
}

func startAcceptCounter(t *testing.T) *acceptCounter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &acceptCounter{ln: ln, accepted: make(chan string, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			a.accepted <- c.RemoteAddr().String()
			_ = c.Close()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
	})
	return a
}

// acceptsBefore dials the listener itself and returns how many
// connections it accepted, since the last call, before that one: the
// accept queue is first in, first out, so a connection a refused call had
// opened would be counted.
func (a *acceptCounter) acceptsBefore(t *testing.T) int {
	t.Helper()
	c, err := net.Dial("tcp", a.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	own := c.LocalAddr().String()
	deadline := time.After(10 * time.Second)
	for n := 0; ; n++ {
		select {
		case r := <-a.accepted:
			if r == own {
				return n
			}
		case <-deadline:
			t.Fatalf("the listener did not accept the test's own connection within 10s")
		}
	}
}

func TestSSHDialsThroughThePolicyBeforeConnecting(t *testing.T) {
	a := startAcceptCounter(t)
	creds := backend.MapCredentials{{Namespace: "team-a", Name: "ssh"}: {keySSHKey: newKey(t).pem, keyKnownHosts: []byte("")}}
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: "ssh://git@" + a.ln.Addr().String() + "/repo.git",
		SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: "ssh"},
			TLS: &v1alpha1.TLSConfig{InsecureSkipVerify: true}}}
	tests := []struct {
		name   string
		policy egress.Policy
	}{
		{"the default policy refuses a loopback SSH server", egress.Policy{}},
		{"the link-local opt-in refuses a loopback SSH server", egress.Policy{AllowLinkLocal: true}},
		{"the deny list refuses a loopback SSH server under the in-cluster opt-in",
			egress.Policy{AllowPrivate: true, Deny: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink(t, &Backend{Egress: tt.policy}, spec, creds)
			denied := func(err error) bool { return sink.IsPermanent(err) && errors.Is(err, egress.ErrDenied) }
			if err := s.Write(context.Background(), snap(t, "team-a", 1, pod("team-a", "a", 1))); !denied(err) {
				t.Fatalf("write: %v, want a permanent egress.ErrDenied", err)
			}
			if err := s.Check(context.Background()); !denied(err) {
				t.Fatalf("check: %v, want a permanent egress.ErrDenied", err)
			}
		})
	}
	if n := a.acceptsBefore(t); n != 0 {
		t.Fatalf("the refused sinks opened %d TCP connections to the server", n)
	}
	// The in-cluster opt-in does connect (the key exchange then fails on
	// the closed connection), so the count above is the policy's doing.
	s := newSink(t, &Backend{Egress: allowLoopback}, spec, creds)
	if err := s.Check(context.Background()); err == nil || errors.Is(err, egress.ErrDenied) {
		t.Fatalf("check under the in-cluster opt-in: %v, want a connection error", err)
	}
	if n := a.acceptsBefore(t); n != 1 {
		t.Fatalf("the admitted sink opened %d connections, want 1", n)
	}
}

func TestGitCallsWithoutThePolicyAreRefused(t *testing.T) {
	a := startAcceptCounter(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	tests := []struct{ name, url string }{
		{"an ssh call without the policy's proxy options", "ssh://git@" + a.ln.Addr().String() + "/repo.git"},
		{"an http call without the sink's transport in its context", srv.URL + "/repo.git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remote := gogit.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: remoteName, URLs: []string{tt.url}})
			_, err := remote.ListContext(context.Background(), &gogit.ListOptions{})
			if !errors.Is(err, egress.ErrDenied) {
				t.Fatalf("list: %v, want egress.ErrDenied", err)
			}
		})
	}
	if n := a.acceptsBefore(t); n != 0 {
		t.Fatalf("the ssh call opened %d connections", n)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the http call reached the server %d times", n)
	}
}

func TestFileRepositoriesNeedTheirOwnOptIn(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	name, _ := p.newRepo(t)
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: "file://" + p.g.Root + "/" + name + ".git"}
	tests := []struct {
		name   string
		policy egress.Policy
		admit  bool
	}{
		{"the default policy refuses file://", egress.Policy{}, false},
		{"the in-cluster opt-in refuses file://", egress.Policy{AllowPrivate: true, AllowLinkLocal: true}, false},
		{"the file opt-in admits file://", egress.Policy{AllowLocalFiles: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := (&Backend{Egress: tt.policy}).New(context.Background(), cfgFor(t, spec), backend.MapCredentials{})
			if tt.admit {
				if err != nil {
					t.Fatalf("new: %v", err)
				}
				defer func() { _ = s.Close(context.Background()) }()
				if err := s.Write(context.Background(), snap(t, "team-a", 1, pod("team-a", "a", 1))); err != nil {
					t.Fatalf("write: %v", err)
				}
				return
			}
			if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
				t.Fatalf("new: %v, want a permanent egress.ErrDenied", err)
			}
		})
	}
}
