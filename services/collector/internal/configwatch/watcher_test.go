package configwatch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// journal is a Handler that records calls as lines.
type journal struct {
	mu    sync.Mutex
	lines []string
}

func (j *journal) add(format string, args ...any) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines = append(j.lines, fmt.Sprintf(format, args...))
	return nil
}

func (j *journal) Reset(_ context.Context, cfgs []busv1.TargetConfig, complete bool) error {
	names := []string{}
	for _, c := range cfgs {
		names = append(names, fmt.Sprintf("%s/%d", bus.ConfigKey(Ref(c)), c.Generation))
	}
	slices.Sort(names)
	if complete {
		names = append(names, "(complete)")
	}
	return j.add("reset %s", strings.Join(names, " "))
}

func (j *journal) Complete(_ context.Context, complete bool) error {
	return j.add("complete %t", complete)
}

func (j *journal) Put(_ context.Context, c busv1.TargetConfig) error {
	return j.add("put %s/%d", bus.ConfigKey(Ref(c)), c.Generation)
}

func (j *journal) Delete(_ context.Context, ref bus.ConfigRef) error {
	return j.add("delete %s", bus.ConfigKey(ref))
}

func (j *journal) wait(t *testing.T, want ...string) {
	t.Helper()
	testenv.Eventually(t, 20*time.Second, "the handler calls", func() error {
		j.mu.Lock()
		defer j.mu.Unlock()
		if diff := cmp.Diff(want, j.lines); diff != "" {
			return fmt.Errorf("handler calls (-want +got):\n%s", diff)
		}
		return nil
	}, testenv.Every(10*time.Millisecond))
}

func TestWatcherHandsOverTheWholeStateThenChanges(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	kv, err := n.JS.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	put := func(kind busv1.Kind, ns, name string, gen int64) {
		t.Helper()
		b, _ := json.Marshal(busv1.TargetConfig{Kind: kind, Namespace: ns, Name: name, Generation: gen})
		if _, err := kv.Put(ctx, bus.ConfigKey(bus.ConfigRef{Kind: kind, Namespace: ns, Name: name}), b); err != nil {
			t.Fatal(err)
		}
	}
	put(busv1.KindTarget, "team-a", "web", 1)
	put(busv1.KindTarget, "team-a", "gone", 1)
	put(busv1.KindClusterTarget, "", "nodes", 4)
	if err := kv.Delete(ctx, bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindTarget, Namespace: "team-a", Name: "gone"})); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: "team-a", Name: "inv"}), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "KollectTarget.team-a.broken", []byte(`not json`)); err != nil {
		t.Fatal(err)
	}
	reconnect := make(chan struct{})
	var once sync.Once
	j := &journal{}
	w := &Watcher{KV: kv, Handler: j, Log: logr.Discard(), Reconnected: func() <-chan struct{} {
		var ch <-chan struct{} = make(chan struct{})
		once.Do(func() { ch = reconnect }) // only the first watch sees the reconnect
		return ch
	}}
	go func() { _ = w.Run(ctx) }()
	reset := "reset KollectClusterTarget.=cluster.nodes/4 KollectTarget.team-a.web/1"
	j.wait(t, reset)

	put(busv1.KindTarget, "team-a", "web", 2)
	if err := kv.Delete(ctx, bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindClusterTarget, Name: "nodes"})); err != nil {
		t.Fatal(err)
	}
	j.wait(t, reset, "put KollectTarget.team-a.web/2", "delete KollectClusterTarget.=cluster.nodes")

	close(reconnect)
	before := []string{reset, "put KollectTarget.team-a.web/2", "delete KollectClusterTarget.=cluster.nodes",
		"reset KollectTarget.team-a.web/2"}
	j.wait(t, before...)

	if _, err := kv.Put(ctx, bus.ConfigCompleteKey, []byte("2026-01-01T00:00:00Z")); err != nil {
		t.Fatal(err)
	}
	j.wait(t, append(before, "complete true")...)
	if err := kv.Delete(ctx, bus.ConfigCompleteKey); err != nil {
		t.Fatal(err)
	}
	j.wait(t, append(before, "complete true", "complete false")...)
}

func TestWatcherHandsOverTheCompleteMarkerWithTheWholeState(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	kv, err := n.JS.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(busv1.TargetConfig{Kind: busv1.KindTarget, Namespace: "team-a", Name: "web", Generation: 1})
	if _, err := kv.Put(ctx, bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindTarget, Namespace: "team-a", Name: "web"}), b); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, bus.ConfigCompleteKey, []byte("2026-01-01T00:00:00Z")); err != nil {
		t.Fatal(err)
	}
	j := &journal{}
	w := &Watcher{KV: kv, Handler: j, Log: logr.Discard()}
	go func() { _ = w.Run(ctx) }()
	j.wait(t, "reset KollectTarget.team-a.web/1 (complete)")
}
