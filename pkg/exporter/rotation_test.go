package exporter_test

import (
	"context"
	"sync"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"

	"github.com/prometheus/client_golang/prometheus"
	"kollect.dev/kollect/pkg/exporter/backend"
)

// rotatingCreds is a Secret store whose data tests change while the
// runtime runs, as a rotation in Kubernetes would.
type rotatingCreds struct {
	mu sync.Mutex
	m  backend.MapCredentials
}

func newRotatingCreds() *rotatingCreds {
	m := backend.MapCredentials{}
	for k, v := range creds {
		m[k] = v
	}
	return &rotatingCreds{m: m}
}

func (c *rotatingCreds) Secret(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.Secret(ctx, namespace, name)
}

func (c *rotatingCreds) set(name, token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[busv1.NamespacedName{Namespace: "team-a", Name: name}] = map[string][]byte{"token": []byte(token)}
}

func TestARefusedSinkUsesRotatedCredentialsOnTheNextRevision(t *testing.T) {
	e := newEnv(t, "bad-rotated")
	rc := newRotatingCreds()
	e.start(func(c *exporter.Config) { c.Credentials, c.SecretCheckInterval = rc, time.Hour })
	e.publish(1, busv1.ReasonChange, []string{"bad-rotated"}, "a")
	var dl busv1.DeadLetter
	waitFor(t, "a dead letter with the old credentials", func() bool {
		return e.last(bus.StreamDeadLetters, bus.DeadLetterSubject(busv1.FamilySnapshot, inv), &dl)
	})
	rc.set("bad", "good-token")
	e.publish(2, busv1.ReasonChange, []string{"bad-rotated"}, "a", "b")
	waitFor(t, "revision 2 written with the rotated credentials", func() bool { return e.stored("bad-rotated") == 2 })
	if n := e.b.buildsOf("bad-rotated"); n != 2 {
		t.Fatalf("the sink was built %d times, want 2 (once per credential)", n)
	}
}

func TestARotatedSecretRebuildsTheSinkBeforeItsNextWrite(t *testing.T) {
	e := newEnv(t, "good")
	rc := newRotatingCreds()
	reg := prometheus.NewRegistry()
	e.start(func(c *exporter.Config) {
		c.Credentials, c.SecretCheckInterval, c.Metrics = rc, 10*time.Millisecond, reg
	})
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	waitFor(t, "revision 1", func() bool { return e.stored("good") == 1 })
	rc.set("good", "good-token") // same data: not a rotation
	rc.set("unrelated", "x")     // a Secret the sink never read
	e.publish(2, busv1.ReasonChange, []string{"good"}, "a", "b")
	waitFor(t, "revision 2", func() bool { return e.stored("good") == 2 })
	if n := e.b.buildsOf("good"); n != 1 {
		t.Fatalf("the sink was rebuilt without a rotation: %d builds", n)
	}
	// A rotation to a token the store refuses: the periodic check rebuilds
	// the sink, so the next write fails with the new token rather than
	// succeeding with the revoked one.
	rc.set("good", "revoked")
	waitFor(t, "the rotation noticed", func() bool { return counterValue(t, reg, exporter.NameSecretRotations) == 1 })
	e.publish(3, busv1.ReasonChange, []string{"good"}, "c")
	waitFor(t, "a permanent failure with the new token", func() bool { s := e.status("good"); return s != nil && s.Permanent })
	if n := e.b.buildsOf("good"); n != 2 {
		t.Fatalf("the sink was built %d times, want 2", n)
	}
	if e.stored("good") != 2 {
		t.Fatalf("the sink holds revision %d, want 2", e.stored("good"))
	}
}
