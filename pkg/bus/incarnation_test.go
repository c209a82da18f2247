package bus

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/testenv"
)

// watched are the streams of the incarnation test: a change to the second
// must be found behind an unchanged first.
var watched = []string{"FIRST", "SECOND"}

func createStream(ctx context.Context, t *testing.T, js jetstream.JetStream, name string, msgs int) {
	t.Helper()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{name + ".>"}}); err != nil {
		t.Fatalf("create stream %s: %v", name, err)
	}
	for range msgs {
		if _, err := js.Publish(ctx, name+".x", []byte("m")); err != nil {
			t.Fatalf("publish to %s: %v", name, err)
		}
	}
}

func TestIncarnationTellsAResetBus(t *testing.T) {
	second := watched[1]
	deleteSecond := func(ctx context.Context, t *testing.T, n *testenv.NATS) {
		if err := n.JS.DeleteStream(ctx, second); err != nil {
			t.Fatal(err)
		}
	}
	purgeSecond := func(ctx context.Context, t *testing.T, n *testenv.NATS) {
		s, err := n.JS.Stream(ctx, second)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Purge(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name      string
		missingOK bool
		held      bool // the Emptied hook's answer; no hook when false
		atStart   []string
		change    func(ctx context.Context, t *testing.T, n *testenv.NATS)
		watchErr  string // How of Watch's ResetError
		checkErr  string // How of Check's ResetError; "no answer" for another error
	}{
		{name: "unchanged", held: true, atStart: watched},
		{name: "missing at the start", atStart: watched[:1], watchErr: ResetMissing},
		{name: "missing at the start, MissingOK, still missing", missingOK: true, atStart: watched[:1]},
		{name: "missing at the start, MissingOK, appeared", missingOK: true, atStart: watched[:1], checkErr: ResetAppeared,
			change: func(ctx context.Context, t *testing.T, n *testenv.NATS) { createStream(ctx, t, n.JS, second, 1) }},
		{name: "deleted", atStart: watched, change: deleteSecond, checkErr: ResetDeleted},
		{name: "deleted and re-created", atStart: watched, checkErr: ResetRecreated,
			change: func(ctx context.Context, t *testing.T, n *testenv.NATS) {
				deleteSecond(ctx, t, n)
				createStream(ctx, t, n.JS, second, 1)
			}},
		{name: "emptied while held", held: true, atStart: watched, change: purgeSecond, checkErr: ResetEmptied},
		{name: "emptied while nothing is held", atStart: watched, change: purgeSecond},
		{name: "no answer is not a reset", atStart: watched, checkErr: "no answer",
			change: func(_ context.Context, _ *testing.T, n *testenv.NATS) { n.Server.Shutdown() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := testenv.StartNATS(t)
			ctx := testContext(t)
			for _, name := range c.atStart {
				createStream(ctx, t, n.JS, name, 2)
			}
			opts := []WatchOption{Emptied(second, func() bool { return c.held })}
			if c.missingOK {
				opts = append(opts, MissingOK())
			}
			inc, err := Watch(ctx, n.JS, watched, opts...)
			if c.watchErr != "" {
				wantReset(t, "Watch", err, c.watchErr)
				return
			}
			if err != nil {
				t.Fatalf("Watch: %v", err)
			}
			if got := len(inc.Baseline()); got != len(c.atStart) {
				t.Fatalf("baseline of %d streams, want %d", got, len(c.atStart))
			}
			if c.change != nil {
				c.change(ctx, t, n)
			}
			checkCtx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			err = inc.Check(checkCtx)
			switch c.checkErr {
			case "":
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
			case "no answer":
				if err == nil || errors.Is(err, ErrReset) {
					t.Fatalf("Check: %v, want an error that is not ErrReset", err)
				}
			default:
				wantReset(t, "Check", err, c.checkErr)
			}
		})
	}
}

// wantReset fails unless err is a ResetError of the second stream, changed
// as how says.
func wantReset(t *testing.T, op string, err error, how string) {
	t.Helper()
	var r *ResetError
	if !errors.Is(err, ErrReset) || !errors.As(err, &r) || r.Stream != watched[1] || r.How != how {
		t.Fatalf("%s: %v, want stream %s %s", op, err, watched[1], how)
	}
}
