package informers

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/testenv"
)

var (
	deployments = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	configMaps  = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
)

// recorder is a Handler that counts Synced events per GVK.
type recorder struct {
	mu     sync.Mutex
	synced map[schema.GroupVersionKind]int
}

func (r *recorder) ObjectChanged(schema.GroupVersionKind, string, types.UID) {}
func (r *recorder) NamespaceChanged(string)                                  {}
func (r *recorder) Gone(schema.GroupVersionKind)                             {}
func (r *recorder) StateChanged(schema.GroupVersionKind)                     {}
func (r *recorder) Synced(gvk schema.GroupVersionKind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.synced[gvk]++
}

func (r *recorder) syncs(gvk schema.GroupVersionKind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.synced[gvk]
}

// cached waits for the sync-th sync of the Deployment informer and returns
// the cached object ns/name.
func cached(t *testing.T, m *Manager, rec *recorder, sync int, key string) *unstructured.Unstructured {
	t.Helper()
	var out *unstructured.Unstructured
	testenv.Eventually(t, 60*time.Second, "cached "+key, func() error {
		if rec.syncs(deployments) < sync {
			return fmt.Errorf("%d syncs, want %d", rec.syncs(deployments), sync)
		}
		store, synced, ok := m.Store(deployments)
		if !ok || !synced {
			return fmt.Errorf("no synced informer")
		}
		obj, exists, err := store.GetByKey(key)
		if err != nil || !exists {
			return fmt.Errorf("%s not cached: %v", key, err)
		}
		if out, err = AsUnstructured(obj); err != nil {
			return err
		}
		return nil
	})
	return out
}

func TestManagerCachesOnlyWhatTargetsNeed(t *testing.T) {
	kube := testenv.StartKube(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, ns := range []string{"shop", "other"} {
		if err := kube.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		if err := kube.Client.Create(ctx, realisticDeployment(ns, "cart")); err != nil {
			t.Fatal(err)
		}
	}
	dyn := dynamic.NewForConfigOrDie(kube.Config)
	original, err := dyn.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).
		Namespace("shop").Get(ctx, "cart", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{Rest: kube.Config})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{synced: map[schema.GroupVersionKind]int{}}
	m.Set(deployments, Requirement{Fields: imageFields(), Namespaces: []string{"shop"}})
	go func() { _ = m.Run(ctx, rec) }()

	small := cached(t, m, rec, 1, "shop/cart")
	before, after := size(t, original), size(t, small)
	t.Logf("cached bytes per Deployment from the API server: %d before the transform, %d after (%.1f%%)",
		before, after, 100*float64(after)/float64(before))
	if after*5 > before {
		t.Errorf("the transform kept %d of %d bytes, want less than a fifth", after, before)
	}
	t.Run("a single static namespace scopes the informer", func(t *testing.T) {
		if store, _, _ := m.Store(deployments); len(store.List()) != 1 {
			t.Errorf("cached %d objects, want only shop/cart", len(store.List()))
		}
	})

	env := extract.NewFieldSet([]string{"spec", "template", "spec", "containers", "env"})
	env.Union(imageFields())
	m.Set(deployments, Requirement{Fields: env})
	grown := cached(t, m, rec, 2, "other/cart")
	t.Run("a grown field set restarts the informer cluster-wide with the new fields", func(t *testing.T) {
		containers, _, _ := unstructured.NestedSlice(grown.Object, "spec", "template", "spec", "containers")
		if len(containers) != 2 || containers[0].(map[string]any)["env"] == nil {
			t.Errorf("containers after the restart = %v, want env kept", containers)
		}
		if _, ok, _ := unstructured.NestedFieldNoCopy(grown.Object, "spec", "strategy"); ok {
			t.Error("spec.strategy is cached though no Target reads it")
		}
	})

	m.Set(deployments, Requirement{Fields: imageFields()})
	// Reconciling handles every GVK in one pass: once the ConfigMap
	// informer synced, the smaller Deployment requirement was handled too.
	m.Set(configMaps, Requirement{Fields: extract.NewFieldSet([]string{"data"})})
	testenv.Eventually(t, 60*time.Second, "the ConfigMap informer syncs", func() error {
		if rec.syncs(configMaps) == 0 {
			return fmt.Errorf("not synced")
		}
		return nil
	})
	t.Run("a smaller field set keeps the running informer", func(t *testing.T) {
		if n := rec.syncs(deployments); n != 2 {
			t.Errorf("%d syncs, want 2 (no restart)", n)
		}
	})
}

func size(t *testing.T, u *unstructured.Unstructured) int {
	t.Helper()
	b, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}
