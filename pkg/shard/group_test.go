package shard_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/shard"
	"kollect.dev/kollect/pkg/testenv"
)

const ttl = 600 * time.Millisecond

// ledger records which replica works on which shard, and any moment two
// worked on one shard at once.
type ledger struct {
	mu      sync.Mutex
	owner   map[int]string
	overlap []string
	starts  map[string]int
}

func newLedger() *ledger { return &ledger{owner: map[int]string{}, starts: map[string]int{}} }

func (l *ledger) work(id string) shard.Work {
	return func(ctx context.Context, i int) error {
		l.mu.Lock()
		if o, ok := l.owner[i]; ok {
			l.overlap = append(l.overlap, fmt.Sprintf("shard %d: %s started while %s worked", i, id, o))
		}
		l.owner[i] = id
		l.starts[id]++
		l.mu.Unlock()
		<-ctx.Done()
		l.mu.Lock()
		if l.owner[i] == id {
			delete(l.owner, i)
		}
		l.mu.Unlock()
		return nil
	}
}

// byOwner returns the shards each replica works on.
func (l *ledger) byOwner() map[string][]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string][]int{}
	for i, id := range l.owner {
		out[id] = append(out[id], i)
	}
	for _, s := range out {
		slices.Sort(s)
	}
	return out
}

func (l *ledger) overlaps() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.overlap)
}

type replica struct {
	g    *shard.Group
	stop context.CancelFunc
	done chan error
}

func bucket(t *testing.T, js jetstream.JetStream) jetstream.KeyValue {
	t.Helper()
	kv, err := js.CreateKeyValue(context.Background(), jetstream.KeyValueConfig{Bucket: "leases"})
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

func join(t *testing.T, kv jetstream.KeyValue, id string, shards int, l *ledger) *replica {
	t.Helper()
	g, err := shard.New(shard.Config{KV: kv, Role: "collector", Identity: id, Shards: shards, TTL: ttl, Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{g: g, stop: cancel, done: make(chan error, 1)}
	go func() { r.done <- g.Run(ctx, l.work(id)) }()
	t.Cleanup(func() { cancel(); <-r.done }) //nolint:errcheck // the test checked Run's error where it matters
	return r
}

// waitSpread waits until the shards are spread over exactly ids, each with
// between floor and ceil of its share and every shard worked on.
func waitSpread(t *testing.T, l *ledger, shards int, ids ...string) map[string][]int {
	t.Helper()
	lo, hi := shards/len(ids), (shards+len(ids)-1)/len(ids)
	var got map[string][]int
	testenv.Eventually(t, 20*time.Second, fmt.Sprintf("%d shards spread over %v", shards, ids), func() error {
		got = l.byOwner()
		total := 0
		for _, id := range ids {
			n := len(got[id])
			if n < lo || n > hi {
				return fmt.Errorf("%s works on %d shards, want %d to %d: %v", id, n, lo, hi, got)
			}
			total += n
		}
		if len(got) != len(ids) || total != shards {
			return fmt.Errorf("worked on: %v", got)
		}
		return nil
	}, testenv.Every(20*time.Millisecond))
	return got
}

func TestReplicasShareTheShardsAndAJoinMovesOnlyItsShare(t *testing.T) {
	n := testenv.StartNATS(t)
	kv := bucket(t, n.JS)
	l := newLedger()
	// 10 over 3 is 3 or 4 each: the replicas holding 5 give back down to
	// 3 while the newcomer is short, not only down to 4.
	join(t, kv, "a", 10, l)
	waitSpread(t, l, 10, "a")
	join(t, kv, "b", 10, l)
	two := waitSpread(t, l, 10, "a", "b")
	join(t, kv, "c", 10, l)
	three := waitSpread(t, l, 10, "a", "b", "c")
	for _, id := range []string{"a", "b"} {
		for _, i := range three[id] {
			if !slices.Contains(two[id], i) {
				t.Errorf("replica %s gained shard %d when c joined: %v -> %v", id, i, two[id], three[id])
			}
		}
	}
	if o := l.overlaps(); len(o) > 0 {
		t.Fatalf("two replicas worked on one shard: %v", o)
	}
}

func TestALeavingReplicasShardsGoToTheOthers(t *testing.T) {
	n := testenv.StartNATS(t)
	kv := bucket(t, n.JS)
	l := newLedger()
	a := join(t, kv, "a", 8, l)
	join(t, kv, "b", 8, l)
	before := waitSpread(t, l, 8, "a", "b")
	a.stop()
	if err := <-a.done; err != nil {
		t.Fatalf("Run of a stopped replica: %v", err)
	}
	a.done <- nil // for the cleanup
	after := waitSpread(t, l, 8, "b")
	if !slices.Equal(after["b"], []int{0, 1, 2, 3, 4, 5, 6, 7}) || len(before["a"]) != 4 {
		t.Fatalf("before %v, after %v", before, after)
	}
	if o := l.overlaps(); len(o) > 0 {
		t.Fatalf("two replicas worked on one shard: %v", o)
	}
}

func TestACrashedReplicasShardsAreTakenAfterTheTTL(t *testing.T) {
	n := testenv.StartNATS(t)
	l := newLedger()
	// a's own connection: closing it is a crash as far as the bus can
	// tell (nothing renewed, nothing given back).
	nc, err := nats.Connect(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	kvA := bucket(t, js)
	kvB, err := n.JS.KeyValue(context.Background(), "leases")
	if err != nil {
		t.Fatal(err)
	}
	join(t, kvA, "a", 6, l)
	join(t, kvB, "b", 6, l)
	waitSpread(t, l, 6, "a", "b")
	nc.Close()
	// a's work goes on until a notices it cannot renew: the ledger's
	// owner stays "a" for those shards until then, so "b" starting one
	// meanwhile would be recorded as an overlap.
	waitSpread(t, l, 6, "b")
	if o := l.overlaps(); len(o) > 0 {
		t.Fatalf("two replicas worked on one shard: %v", o)
	}
}

func TestAReplicaWithAnotherShardCountWaitsForTheOldOnesToLeave(t *testing.T) {
	n := testenv.StartNATS(t)
	kv := bucket(t, n.JS)
	l := newLedger()
	old := join(t, kv, "old", 4, l)
	waitSpread(t, l, 4, "old")
	join(t, kv, "new", 8, l)
	// The new replica must not start while "old" lives: over several
	// renewals, it takes nothing.
	err := testenv.Poll(context.Background(), 3*ttl, func() error {
		if got := l.byOwner(); len(got["new"]) > 0 {
			return nil
		}
		return errors.New("the new replica works on nothing yet")
	}, testenv.Every(20*time.Millisecond))
	if err == nil {
		t.Fatalf("a replica with 8 shards worked while one with 4 lived: %v", l.byOwner())
	}
	old.stop()
	if err := <-old.done; err != nil {
		t.Fatal(err)
	}
	old.done <- nil
	waitSpread(t, l, 8, "new")
}
