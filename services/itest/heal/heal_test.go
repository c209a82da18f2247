package heal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/nats-io/nats.go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli/dev"
)

// events records every snapshot event of one inventory.
type events struct {
	mu  sync.Mutex
	all []busv1.SnapshotEvent
}

func (e *events) list() []busv1.SnapshotEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]busv1.SnapshotEvent(nil), e.all...)
}

const objects = 3

func TestTheBusHealsWithoutAWipeWindow(t *testing.T) {
	kube, err := testenv.NewKube()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kube.Stop() })
	n := testenv.StartNATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		done <- dev.Run(ctx, dev.Options{Rest: kube.Config, NATSURL: n.URL, Log: fileLog(t),
			AllowInClusterSinks: true, Ready: func(string) { close(ready) }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("dev.Run: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("dev.Run ended before it was ready: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("dev.Run not ready within a minute")
	}

	inv := busv1.NamespacedName{Name: "heal"}
	ev := &events{}
	sub, err := n.Conn.Subscribe(bus.SnapshotSubject(inv), func(m *nats.Msg) {
		var e busv1.SnapshotEvent
		if json.Unmarshal(m.Data, &e) == nil {
			ev.mu.Lock()
			ev.all = append(ev.all, e)
			ev.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	repo := testenv.StartGit(t, testenv.GitOptions{}).CreateRepo(t, "heal")
	cms := setUp(t, kube.Client, repo)
	waitEvent(t, ev, 0, "the first snapshot")

	t.Run("a lost rows bucket is written again", func(t *testing.T) {
		lose(t, n, bus.BucketRows)
		for i := range bus.DefaultCollectorShards {
			waitKey(t, n, bus.BucketRows, bus.RowsSyncedShardKey(bus.DefaultCollectorShards, i))
		}
		seen := len(ev.list())
		change(t, kube.Client, cms[0], "2")
		waitEvent(t, ev, seen, "a change after the refill")
	})
	t.Run("a lost config bucket is put again", func(t *testing.T) {
		lose(t, n, bus.BucketConfig)
		waitKey(t, n, bus.BucketConfig, bus.ConfigCompleteKey)
		waitKey(t, n, bus.BucketConfig, bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindClusterInventory, Name: "heal"}))
		seen := len(ev.list())
		change(t, kube.Client, cms[1], "2")
		waitEvent(t, ev, seen, "a change after the config came back")
	})
	t.Run("a lost snapshot history and export state continue above the status floor", func(t *testing.T) {
		floor := statusFloor(t, kube.Client, n, ev)
		if err := n.JS.DeleteStream(t.Context(), bus.StreamSnapshots); err != nil {
			t.Fatal(err)
		}
		lose(t, n, bus.BucketExportState)
		seen := len(ev.list())
		change(t, kube.Client, cms[2], "2")
		waitEvent(t, ev, seen, "a change after the history was lost")
		for _, e := range ev.list()[seen:] {
			if e.Revision <= floor {
				t.Errorf("revision %d after the sink held %d", e.Revision, floor)
			}
		}
		// The snapshot exporter's durable consumer went with the stream:
		// it opens the bus again once control provisioned it, and the Git
		// sink gets the new revision.
		want := ev.list()[len(ev.list())-1].Revision
		testenv.Eventually(t, 2*time.Minute, "the Git sink's export of the new revision", func() error {
			inv := &v1alpha1.KollectClusterInventory{}
			if err := kube.Client.Get(t.Context(), client.ObjectKey{Name: "heal"}, inv); err != nil {
				return err
			}
			if len(inv.Status.SinkExports) != 1 || uint64(inv.Status.SinkExports[0].LastRevision) < want {
				return fmt.Errorf("sinkExports %+v, want revision %d", inv.Status.SinkExports, want)
			}
			return nil
		})
	})
	var last uint64
	for _, e := range ev.list() {
		t.Logf("event: revision %d, %s, %d items", e.Revision, e.Reason, e.ItemCount)
		if e.ItemCount != objects {
			t.Errorf("revision %d (%s) has %d items, want %d: a sink would have lost rows", e.Revision, e.Reason, e.ItemCount, objects)
		}
		// A publish the stream refused (the subject moved on) reaches core
		// subscribers too, and is retried: a revision may repeat once.
		if e.Reason == busv1.ReasonChange && e.Revision < last {
			t.Errorf("revision %d after %d", e.Revision, last)
		}
		last = max(last, e.Revision)
	}
}

// setUp creates a namespace with ConfigMaps, and a Profile, ClusterTarget
// and ClusterInventory that roll them up.
func setUp(t *testing.T, c client.Client, repo string) []*corev1.ConfigMap {
	t.Helper()
	ctx := t.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "heal", Labels: map[string]string{"heal": "yes"}}}
	p := &v1alpha1.KollectProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "heal", Name: "cms"},
		Spec: v1alpha1.KollectProfileSpec{TargetGVK: v1alpha1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Attributes: []v1alpha1.Attribute{{Name: "v", Path: "$.data.v"}}}}
	tg := &v1alpha1.KollectClusterTarget{ObjectMeta: metav1.ObjectMeta{Name: "heal"},
		Spec: v1alpha1.KollectClusterTargetSpec{ProfileRef: v1alpha1.NamespacedObjectReference{Namespace: "heal", Name: "cms"},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"heal": "yes"}}}}
	sink := &v1alpha1.KollectSnapshotSink{ObjectMeta: metav1.ObjectMeta{Namespace: "heal", Name: "git"},
		Spec: v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: repo}}
	inv := &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: "heal"},
		Spec: v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{"heal"}, SinkNamespace: "heal",
			SnapshotSinkRefs: []v1alpha1.ClusterSinkBinding{{Name: "git"}}}}
	objs := []client.Object{ns, p, tg, sink, inv}
	var cms []*corev1.ConfigMap
	for i := range objects {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "heal", Name: fmt.Sprintf("cm-%d", i)},
			Data: map[string]string{"v": "1"}}
		cms = append(cms, cm)
		objs = append(objs, cm)
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
	return cms
}

func change(t *testing.T, c client.Client, cm *corev1.ConfigMap, v string) {
	t.Helper()
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["v"] = v
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
}

// lose deletes a bucket and provisions the bus again, as an operator
// would: kollect dev runs control without --provision-bus.
func lose(t *testing.T, n *testenv.NATS, bucket string) {
	t.Helper()
	if err := n.JS.DeleteKeyValue(t.Context(), bucket); err != nil {
		t.Fatal(err)
	}
	if err := bus.Provision(t.Context(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
}

func waitKey(t *testing.T, n *testenv.NATS, bucket, key string) {
	t.Helper()
	testenv.Eventually(t, 2*time.Minute, key+" in "+bucket, func() error {
		kv, err := n.JS.KeyValue(t.Context(), bucket)
		if err != nil {
			return err
		}
		_, err = kv.Get(t.Context(), key)
		return err
	})
}

// waitEvent waits for an event after the first seen ones with every object.
func waitEvent(t *testing.T, ev *events, seen int, what string) {
	t.Helper()
	testenv.Eventually(t, 2*time.Minute, what, func() error {
		all := ev.list()
		for _, e := range all[min(seen, len(all)):] {
			if e.ItemCount == objects {
				return nil
			}
		}
		return errors.New("no such event yet")
	})
}

// statusFloor waits until the sink's revision of the last event is in the
// inventory's status and in its compiled config (revisionFloor), and
// returns it.
func statusFloor(t *testing.T, c client.Client, n *testenv.NATS, ev *events) uint64 {
	t.Helper()
	var floor uint64
	testenv.Eventually(t, 2*time.Minute, "the sink's revision in status and config", func() error {
		all := ev.list()
		want := all[len(all)-1].Revision
		inv := &v1alpha1.KollectClusterInventory{}
		if err := c.Get(t.Context(), client.ObjectKey{Name: "heal"}, inv); err != nil {
			return err
		}
		if len(inv.Status.SinkExports) != 1 || uint64(inv.Status.SinkExports[0].LastRevision) != want {
			return fmt.Errorf("sinkExports %+v, want revision %d", inv.Status.SinkExports, want)
		}
		kv, err := n.JS.KeyValue(t.Context(), bus.BucketConfig)
		if err != nil {
			return err
		}
		e, err := kv.Get(t.Context(), bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindClusterInventory, Name: "heal"}))
		if err != nil {
			return err
		}
		var cfg busv1.InventoryConfig
		if err := json.Unmarshal(e.Value(), &cfg); err != nil {
			return err
		}
		if cfg.RevisionFloor != want {
			return fmt.Errorf("revisionFloor %d, want %d", cfg.RevisionFloor, want)
		}
		floor = want
		return nil
	})
	return floor
}

// fileLog writes every service's logs to heal.log in the test's folder,
// named when the test fails.
func fileLog(t *testing.T) logr.Logger {
	path := filepath.Join(t.TempDir(), "heal.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = f.Close()
		if t.Failed() {
			if b, err := os.ReadFile(path); err == nil {
				_ = os.WriteFile(filepath.Join(os.TempDir(), "kollect-heal.log"), b, 0o600) //nolint:gosec // G303: a log kept for the developer, no secret
				t.Logf("service logs: %s", filepath.Join(os.TempDir(), "kollect-heal.log"))
			}
		}
	})
	var mu sync.Mutex
	return funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = fmt.Fprintln(f, prefix, args)
	}, funcr.Options{})
}
