package informers

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"kollect.dev/kollect/pkg/testenv"
)

// cachedKeys waits until the Deployment cache is synced and holds exactly
// want (sorted keys).
func cachedKeys(t *testing.T, m *Manager, want ...string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, fmt.Sprintf("cached %v", want), func() error {
		store, synced, ok := m.Store(deployments)
		if !ok || !synced {
			return fmt.Errorf("no synced informer")
		}
		if got := storeKeys(t, store); !slices.Equal(got, want) {
			return fmt.Errorf("cached %v", got)
		}
		var nss []string
		for _, k := range want {
			ns, _, _ := cache.SplitMetaNamespaceKey(k)
			nss = append(nss, ns)
		}
		if idx := store.ListIndexFuncValues(cache.NamespaceIndex); !slices.Equal(idx, nss) {
			return fmt.Errorf("namespace index %v, want %v", idx, nss)
		}
		for _, k := range want {
			if _, exists, err := store.GetByKey(k); err != nil || !exists {
				return fmt.Errorf("%s not found by key: %v", k, err)
			}
		}
		return nil
	})
}

// storeKeys are the sorted keys of the objects in store.
func storeKeys(t *testing.T, store Cache) []string {
	t.Helper()
	var out []string
	for _, obj := range store.List() {
		k, err := cache.MetaNamespaceKeyFunc(obj)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// part is the running informer of the Deployments of ns.
func part(m *Manager, ns string) *instance {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k := m.running[deployments]; k != nil {
		return k.parts[ns]
	}
	return nil
}

// Targets naming their namespaces are served by one informer per namespace,
// so a replica caches only its Targets' namespaces (issue 34: every
// collector replica cached every object of a kind); a namespace added or
// removed starts or stops its informer alone.
func TestManagerWatchesTheNamedNamespacesOneByOne(t *testing.T) {
	kube := testenv.StartKube(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, ns := range []string{"shop", "other", "third"} {
		if err := kube.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		if err := kube.Client.Create(ctx, realisticDeployment(ns, "cart")); err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(Config{Rest: kube.Config})
	if err != nil {
		t.Fatal(err)
	}
	m.Set(deployments, Requirement{Fields: imageFields(), Namespaces: []string{"other", "shop"}})
	go func() { _ = m.Run(ctx, &recorder{synced: map[schema.GroupVersionKind]int{}}) }()
	cachedKeys(t, m, "other/cart", "shop/cart")
	shop := part(m, "shop")

	m.Set(deployments, Requirement{Fields: imageFields(), Namespaces: []string{"other", "shop", "third"}})
	cachedKeys(t, m, "other/cart", "shop/cart", "third/cart")
	if part(m, "shop") != shop {
		t.Error("adding a namespace restarted the informer of another")
	}

	m.Set(deployments, Requirement{Fields: imageFields(), Namespaces: []string{"third"}})
	cachedKeys(t, m, "third/cart")

	m.Set(deployments, Requirement{Fields: imageFields()})
	cachedKeys(t, m, "other/cart", "shop/cart", "third/cart")
	if part(m, "") == nil {
		t.Error("no informer of every namespace once a Target reads them all")
	}
}
