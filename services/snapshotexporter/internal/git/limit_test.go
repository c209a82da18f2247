package git

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/util"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
)

func TestReadLimits(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{Token: "tok"})
	t.Run("a fetched answer over MaxFetchBytes is a permanent error naming the cap", func(t *testing.T) {
		_, url := p.newRepo(t)
		first := snap(t, "team-a", 1, pods("team-a", 300, 1)...)
		write(t, newSink(t, &Backend{Egress: allowLoopback}, p.spec(url), p.creds), first)
		capped := newSink(t, &Backend{Egress: allowLoopback, MaxFetchBytes: 2048}, p.spec(url), p.creds)
		_, err := capped.Drift(context.Background(), first)
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "larger than the read limit of 2048 bytes") {
			t.Fatalf("drift with a 2 KiB cap returned %v, want a permanent error naming the cap", err)
		}
		if _, err := newSink(t, &Backend{Egress: allowLoopback}, p.spec(url), p.creds).Drift(context.Background(), first); err != nil {
			t.Fatalf("drift with the default cap: %v", err)
		}
	})
	t.Run("a state file over 16 MiB is unreadable drift, never read whole, and a repair replaces it", func(t *testing.T) {
		_, url := p.newRepo(t)
		s := newSink(t, &Backend{Egress: allowLoopback}, p.spec(url), p.creds)
		first := snap(t, "team-a", 1, pods("team-a", 3, 1)...)
		write(t, s, first)
		r := p.newReader(t, url, p.spec(url))
		inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
		if err := r.commit(context.Background(), "a huge state", func(fs billy.Filesystem) error {
			// The State as written, padded with spaces: valid, but only
			// when read whole.
			path := tree.StatePath("conformance", inv)
			data, err := util.ReadFile(fs, path)
			if err != nil {
				return err
			}
			return util.WriteFile(fs, path, append(data, bytes.Repeat([]byte{' '}, maxStateBlob+1-len(data))...), 0o644)
		}); err != nil {
			t.Fatal(err)
		}
		reason, err := s.Drift(context.Background(), first)
		if err != nil || !strings.Contains(reason, "unreadable") {
			t.Fatalf("drift = %q, %v; want the state file unreadable", reason, err)
		}
		repair := first
		repair.Repair = true
		write(t, s, repair)
		if reason, err := s.Drift(context.Background(), first); err != nil || reason != "" {
			t.Fatalf("drift after the repair = %q, %v; want none", reason, err)
		}
	})
}

func TestLimitedBody(t *testing.T) {
	b := &limitedBody{rc: ioNopCloser{strings.NewReader("0123456789")}, max: 4, host: "example.com"}
	got, err := readAll(b)
	if !errors.Is(err, ErrAnswerTooLarge) || got != "0123" {
		t.Fatalf("read %q, %v; want the first 4 bytes and ErrAnswerTooLarge", got, err)
	}
}

type ioNopCloser struct{ *strings.Reader }

func (ioNopCloser) Close() error { return nil }

func readAll(b *limitedBody) (string, error) {
	var out bytes.Buffer
	buf := make([]byte, 3)
	for {
		n, err := b.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			if err.Error() == "EOF" {
				return out.String(), nil
			}
			return out.String(), err
		}
	}
}
