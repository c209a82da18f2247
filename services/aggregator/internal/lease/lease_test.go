package lease

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	"kollect.dev/kollect/pkg/testenv"
)

func bucket(t *testing.T) jetstream.KeyValue {
	t.Helper()
	n := testenv.StartNATS(t)
	kv, err := n.JS.CreateKeyValue(context.Background(), jetstream.KeyValueConfig{Bucket: "leases"})
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

func plant(t *testing.T, kv jetstream.KeyValue, holder string, expires time.Time) {
	t.Helper()
	b, _ := json.Marshal(record{Holder: holder, Expires: expires})
	if _, err := kv.Put(context.Background(), "k", b); err != nil {
		t.Fatal(err)
	}
}

func TestALeaseHeldByAnotherReplicaIsNotTakenUntilItExpires(t *testing.T) {
	kv := bucket(t)
	l := New(kv, "k", "me", 300*time.Millisecond)
	plant(t, kv, "crashed", time.Now().Add(time.Hour))
	if _, err := l.try(context.Background()); !errors.Is(err, errHeld) {
		t.Fatalf("try on a live lease of another replica = %v, want errHeld", err)
	}
	plant(t, kv, "crashed", time.Now().Add(-time.Second))
	if _, err := l.try(context.Background()); err != nil {
		t.Fatalf("try on an expired lease = %v", err)
	}
}

func TestARetiredLeaseWaitsForTheActiveReplicaThenKeepsEveryReplicaOfEarlierReleasesIdle(t *testing.T) {
	kv := bucket(t)
	plant(t, kv, "old-leader", time.Now().Add(time.Hour))
	if _, err := New(kv, "k", Retired, time.Minute).try(context.Background()); !errors.Is(err, errHeld) {
		t.Fatalf("retiring a lease an earlier release's leader holds = %v, want errHeld", err)
	}
	plant(t, kv, "old-leader", time.Now().Add(-time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	held := make(chan struct{})
	go Retire(ctx, kv, "k", 150*time.Millisecond, held, logr.Discard())
	go Retire(ctx, kv, "k", 150*time.Millisecond, nil, logr.Discard()) // another sharded replica
	testenv.EventuallyTrue(t, 5*time.Second, "the retired lease held", func() bool {
		select {
		case <-held:
			return true
		default:
			return false
		}
	})
	testenv.EventuallyTrue(t, 5*time.Second, "two sharded replicas renewed the retired lease", func() bool {
		e, err := kv.Get(context.Background(), "k")
		return err == nil && e.Revision() >= 6
	})
	old := New(kv, "k", "old-standby", time.Minute)
	if _, err := old.try(context.Background()); !errors.Is(err, errHeld) {
		t.Fatalf("a replica of an earlier release took the retired lease: %v", err)
	}
}
