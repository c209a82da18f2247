package bus_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// stuckOnce is a real object store whose first List never completes by
// itself, as nats.go's does on a replicated store whose "last message"
// lookup failed.
type stuckOnce struct {
	jetstream.ObjectStore
	calls int
}

func (s *stuckOnce) List(ctx context.Context, opts ...jetstream.ListObjectsOpt) ([]*jetstream.ObjectInfo, error) {
	s.calls++
	if s.calls <= 1 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.ObjectStore.List(ctx, opts...)
}

func TestListObjectsTriesAgainAfterAListingThatNeverEnds(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	obs, err := n.JS.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "objects"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obs.Put(ctx, jetstream.ObjectMeta{Name: "chunk.a"}, bytes.NewReader([]byte("a"))); err != nil {
		t.Fatal(err)
	}
	s := &stuckOnce{ObjectStore: obs}
	infos, err := bus.ListObjects(ctx, s, 200*time.Millisecond)
	if err != nil || len(infos) != 1 || infos[0].Name != "chunk.a" || s.calls != 2 {
		t.Fatalf("ListObjects = %v, %v after %d calls; want chunk.a after 2", infos, err, s.calls)
	}
}

func TestListObjectsOfAnEmptyStoreIsNil(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	obs, err := n.JS.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "empty"})
	if err != nil {
		t.Fatal(err)
	}
	infos, err := bus.ListObjects(ctx, obs, time.Second)
	if err != nil || infos != nil {
		t.Fatalf("ListObjects = %v, %v", infos, err)
	}
}

func TestListObjectsEndsWithItsContext(t *testing.T) {
	n := testenv.StartNATS(t)
	obs, err := n.JS.CreateObjectStore(context.Background(), jetstream.ObjectStoreConfig{Bucket: "objects"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	s := &stuckOnce{ObjectStore: obs, calls: -1000} // stuck every time
	if _, err := bus.ListObjects(ctx, s, 100*time.Millisecond); err == nil {
		t.Fatal("ListObjects returned no error after its context ended")
	}
}
