package rowstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

func TestAFailedPutLandsTheLatestContentOnceTheBusRecovers(t *testing.T) {
	for _, o := range outages {
		t.Run(o.name, func(t *testing.T) {
			ctx, n, kv := rowsBucket(t)
			s := openFast(ctx, t, n, kv, Options{})
			q := newRequeuer(ctx, s)
			key := row("web", "u1", "").Key()
			seen := history(ctx, t, kv, key)
			q.set(row("web", "u1", "app:0"))
			flush(ctx, t, s)

			repair := o.breaks(ctx, t, n)
			q.set(row("web", "u1", "app:1"))
			testenv.Eventually(t, 30*time.Second, "the failed put is reported", func() error {
				if q.failures.Load() == 0 {
					return errNotYet
				}
				return nil
			})
			q.set(row("web", "u1", "app:2")) // the object changed again meanwhile
			repair()

			testenv.Eventually(t, 30*time.Second, "the latest content lands", func() error { return lastIs(seen(), "app:2") })
			flush(ctx, t, s)
			q.check(t)
			if err := lastIs(seen(), "app:2"); err != nil {
				t.Error(err)
			}
			if wrote, err := s.Put(ctx, row("web", "u1", "app:2"), 1, nil); err != nil || wrote {
				t.Errorf("Put of the landed content = %v, %v; want no write", wrote, err)
			}
			if got := s.Count("team-a", "web"); got != 1 {
				t.Errorf("Count = %d, want 1", got)
			}
		})
	}
}

func TestAFailedDeleteIsSentAgainUntilALaterWriteReplacesIt(t *testing.T) {
	cases := []struct {
		name string
		// then runs during the outage, after the delete failed.
		then  func(q *requeuer)
		want  string // the last value: an image, or "-" for the delete
		count int
	}{
		{"a failed delete is sent again", func(*requeuer) {}, "-", 0},
		{"a put after a failed delete wins", func(q *requeuer) { q.set(row("web", "u1", "app:1")) }, "app:1", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, n, kv := rowsBucket(t)
			var failed atomic.Int32
			s := openFast(ctx, t, n, kv, Options{Observe: func(w Write) {
				if w.Delete && w.Err != nil {
					failed.Add(1)
				}
			}})
			q := newRequeuer(ctx, s)
			r := row("web", "u1", "app:0")
			seen := history(ctx, t, kv, r.Key())
			q.set(r)
			flush(ctx, t, s)

			repair := editStream(ctx, t, n, elsewhere)
			if deleted, err := s.Delete(ctx, r.Key()); err != nil || !deleted {
				t.Fatalf("Delete = %v, %v; want a delete sent", deleted, err)
			}
			if got := s.Count("team-a", "web"); got != 0 {
				t.Errorf("Count right after Delete = %d, want 0", got)
			}
			testenv.Eventually(t, 30*time.Second, "the delete fails", func() error {
				if failed.Load() == 0 {
					return errNotYet
				}
				return nil
			})
			c.then(q)
			repair()

			testenv.Eventually(t, 30*time.Second, "the last write lands", func() error { return lastIs(seen(), c.want) })
			flush(ctx, t, s)
			q.check(t)
			if err := lastIs(seen(), c.want); err != nil {
				t.Error(err)
			}
			if got := s.Count("team-a", "web"); got != c.count {
				t.Errorf("Count = %d, want %d", got, c.count)
			}
			_, err := kv.Get(ctx, bus.RowKey(r.Key()))
			if gone := errors.Is(err, jetstream.ErrKeyNotFound); gone != (c.count == 0) {
				t.Errorf("Get after the outage: %v, want the row present: %v", err, c.count == 1)
			}
		})
	}
}

func TestLastWriteWinsUnderABurstOfUpdatesToOneKey(t *testing.T) {
	ctx, n, kv := rowsBucket(t)
	pub, err := NewPublisher(n.Conn, 16, DefaultAckTimeout) // a small window: writers wait for acks
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, kv, pub, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	const keys, versions = 8, 200
	var wg sync.WaitGroup
	for k := range keys {
		wg.Go(func() { // one writer per key, as the engine processes an object once at a time
			for v := range versions {
				if _, err := s.Put(ctx, row("web", fmt.Sprintf("u%d", k), fmt.Sprintf("app:%d", v)), 1, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := s.Count("team-a", "web"); got != keys {
		t.Errorf("Count before the acks = %d, want %d", got, keys)
	}
	flush(ctx, t, s)
	last := fmt.Sprintf("app:%d", versions-1)
	for k := range keys {
		r := row("web", fmt.Sprintf("u%d", k), last)
		e, err := kv.Get(ctx, bus.RowKey(r.Key()))
		if err != nil {
			t.Fatal(err)
		}
		var entry busv1.RowEntry
		if err := json.Unmarshal(e.Value(), &entry); err != nil {
			t.Fatal(err)
		}
		if got := entry.Row.Attributes["image"]; got != last {
			t.Errorf("%s holds %v, want the last write %s", r.UID, got, last)
		}
		if wrote, err := s.Put(ctx, r, 1, nil); err != nil || wrote {
			t.Errorf("Put of the last write again = %v, %v; want no write", wrote, err)
		}
	}
}
