package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/target"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/collector/internal/metrics"
)

// These tests drive the engine against in-memory Informers and Rows; the
// collector's own tests run it against the API server and NATS.

var deployments = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

type fixture struct {
	t    *testing.T
	inf  *memInformers
	rows *memRows
	e    *Engine
}

func newFixture(t *testing.T, namespaces ...string) *fixture {
	t.Helper()
	f := &fixture{t: t, inf: newMemInformers(namespaces...), rows: newMemRows()}
	f.e = New(Config{Informers: f.inf, Rows: f.rows, Metrics: metrics.New(), Status: &marks{}, Workers: 2, Log: logr.Discard()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("engine: %v", err)
		}
	})
	return f
}

// config is the compiled-config entry of Target ns/name, reading the image
// of the Deployments in its own namespace, with the Profile's metrics.
func config(t *testing.T, ns, name string, suspend bool) busv1.TargetConfig {
	t.Helper()
	tgt := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: v1alpha1.KollectTargetSpec{ProfileRef: v1alpha1.ProfileReference{Name: "images"}, Suspend: suspend,
			NamespaceFilters: v1alpha1.NamespaceFilters{IncludedNamespaces: []string{ns}}}}
	prof := &v1alpha1.KollectProfile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "images", Generation: 1},
		Spec: v1alpha1.KollectProfileSpec{
			TargetGVK:  v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Attributes: []v1alpha1.Attribute{{Name: "image", Path: "$.spec.image", Type: "string"}},
			Metrics:    []v1alpha1.ProfileMetric{{Name: "replicas", Path: "replicas"}},
		}}
	cfg, err := target.ConfigForTarget(tgt, prof, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Access = &busv1.TargetAccess{AllNamespaces: true}
	return cfg
}

func deployment(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"namespace": ns, "name": name, "uid": "uid-" + ns + "-" + name},
		"spec":     map[string]any{"image": name + ":1"},
	}}
}

func (f *fixture) rowsAre(ns, target string, want ...string) {
	f.t.Helper()
	if want == nil {
		want = []string{}
	}
	testenv.Eventually(f.t, 10*time.Second, fmt.Sprintf("rows %v of %s/%s", want, ns, target), func() error {
		if d := cmp.Diff(want, f.rows.names(ns, target)); d != "" {
			return fmt.Errorf("rows (-want +got):\n%s", d)
		}
		return nil
	}, testenv.Every(2*time.Millisecond))
}

func TestAPutTargetWatchesItsKindAndWritesARowPerObject(t *testing.T) {
	f := newFixture(t, "team-a", "team-b")
	web := deployment("team-a", "web")
	f.inf.add(deployments, web)
	f.inf.add(deployments, deployment("team-a", "api"))
	f.inf.add(deployments, deployment("team-b", "other")) // not the Target's namespace
	if err := f.e.Put(context.Background(), config(t, "team-a", "t1", false)); err != nil {
		t.Fatal(err)
	}
	req, ok := f.inf.requirement(deployments)
	if !ok {
		t.Fatal("the informer of the Target's kind was not required")
	}
	if !slices.Equal(req.Namespaces, []string{"team-a"}) || req.Whole {
		t.Errorf("requirement = namespaces %q, whole %t; want the Target's namespace and only its fields", req.Namespaces, req.Whole)
	}
	f.rowsAre("team-a", "t1", "api", "web")

	// An object gone while the informer was not synced proves nothing; the
	// sweep after the first full list removes its row.
	f.inf.remove(deployments, web)
	f.e.ObjectChanged(deployments, "team-a/web", web.GetUID())
	f.inf.sync(deployments)
	f.e.Synced(deployments)
	f.rowsAre("team-a", "t1", "api")
}

func TestADeletedTargetLosesItsRowsAndItsInformer(t *testing.T) {
	f := newFixture(t, "team-a")
	f.inf.add(deployments, deployment("team-a", "web"))
	cfg := config(t, "team-a", "t1", false)
	if err := f.e.Reset(context.Background(), []busv1.TargetConfig{cfg}, true); err != nil {
		t.Fatal(err)
	}
	f.rowsAre("team-a", "t1", "web")
	if err := f.e.Delete(context.Background(), Ref(cfg)); err != nil {
		t.Fatal(err)
	}
	f.rowsAre("team-a", "t1")
	if _, ok := f.inf.requirement(deployments); ok {
		t.Error("the informer of a kind no Target collects is still required")
	}
	if _, ok := f.e.Report(Ref(cfg)); ok {
		t.Error("a deleted Target still reports status")
	}
}

func TestADeletionWaitsForACompleteConfig(t *testing.T) {
	f := newFixture(t, "team-a")
	f.inf.add(deployments, deployment("team-a", "web"))
	cfg := config(t, "team-a", "t1", false)
	if err := f.e.Reset(context.Background(), []busv1.TargetConfig{cfg}, false); err != nil {
		t.Fatal(err)
	}
	f.rowsAre("team-a", "t1", "web")
	if err := f.e.Delete(context.Background(), Ref(cfg)); err != nil {
		t.Fatal(err)
	}
	if got := f.rows.names("team-a", "t1"); len(got) != 1 {
		t.Fatalf("rows %v removed while the config bucket was incomplete", got)
	}
	if err := f.e.Complete(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	f.rowsAre("team-a", "t1")
}

func TestASuspendedTargetKeepsItsRowsAndReleasesItsInformer(t *testing.T) {
	f := newFixture(t, "team-a")
	f.inf.add(deployments, deployment("team-a", "web"))
	if err := f.e.Put(context.Background(), config(t, "team-a", "t1", false)); err != nil {
		t.Fatal(err)
	}
	f.rowsAre("team-a", "t1", "web")
	if err := f.e.Put(context.Background(), config(t, "team-a", "t1", true)); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.inf.requirement(deployments); ok {
		t.Error("a suspended Target's kind is still watched")
	}
	f.inf.add(deployments, deployment("team-a", "api"))
	f.e.ObjectChanged(deployments, "team-a/api", "uid-team-a-api")
	if got := f.rows.names("team-a", "t1"); !cmp.Equal(got, []string{"web"}) {
		t.Errorf("rows of a suspended Target = %v, want [web] untouched", got)
	}
	r, ok := f.e.Report(targetRef(t, "team-a", "t1"))
	if !ok || r.Target.Outcome.Reason != v1alpha1.ReasonSuspended {
		t.Errorf("report = %+v, want reason %s", r.Target, v1alpha1.ReasonSuspended)
	}
}

func TestTargetsOfOneKindInTwoNamespacesWatchBothNamespaces(t *testing.T) {
	f := newFixture(t, "team-a", "team-b")
	if err := f.e.Complete(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"team-a", "team-b"} {
		if err := f.e.Put(context.Background(), config(t, ns, "t1", false)); err != nil {
			t.Fatal(err)
		}
	}
	if req, _ := f.inf.requirement(deployments); !slices.Equal(req.Namespaces, []string{"team-a", "team-b"}) {
		t.Errorf("requirement namespaces = %q, want both Targets' namespaces", req.Namespaces)
	}
	if err := f.e.Delete(context.Background(), targetRef(t, "team-b", "t1")); err != nil {
		t.Fatal(err)
	}
	if req, _ := f.inf.requirement(deployments); !slices.Equal(req.Namespaces, []string{"team-a"}) {
		t.Errorf("requirement namespaces = %q once team-b's Target went, want team-a", req.Namespaces)
	}
}

// Targets of one kind added and removed from several goroutines while
// workers read them: the kind stays watched exactly while a Target needs
// it. Run with -race, it also checks the locking of the GVK index.
func TestConcurrentTargetChangesKeepTheInformerInLine(t *testing.T) {
	f := newFixture(t, "team-a")
	if err := f.e.Complete(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	f.inf.add(deployments, deployment("team-a", "web"))
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Go(func() { // the informers' events read the GVK index too
		for {
			select {
			case <-stop:
				return
			default:
				f.e.StateChanged(deployments)
			}
		}
	})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			cfg := config(t, "team-a", fmt.Sprintf("t%d", i), false)
			for range 20 {
				if err := f.e.Put(context.Background(), cfg); err != nil {
					t.Error(err)
				}
				f.e.ObjectChanged(deployments, "team-a/web", "uid-team-a-web")
				if err := f.e.Delete(context.Background(), Ref(cfg)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if _, ok := f.inf.requirement(deployments); ok {
		t.Error("the kind is still watched after every Target went")
	}
	if err := f.e.Put(context.Background(), config(t, "team-a", "last", false)); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.inf.requirement(deployments); !ok {
		t.Error("the kind is not watched for the remaining Target")
	}
	f.rowsAre("team-a", "last", "web")
}

func targetRef(t *testing.T, ns, name string) bus.ConfigRef {
	t.Helper()
	return Ref(config(t, ns, name, false))
}
