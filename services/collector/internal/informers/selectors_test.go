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
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/pkg/testenv"
)

// TestManagerPassesSelectorsToTheAPIServer: the informer of a Requirement
// with a label or field selector lists and watches only the objects that
// match; one that stops matching leaves the cache.
func TestManagerPassesSelectorsToTheAPIServer(t *testing.T) {
	kube := testenv.StartKube(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := kube.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "sel"}}); err != nil {
		t.Fatal(err)
	}
	for name, team := range map[string]string{"cart": "checkout", "pay": "payments", "ship": "checkout"} {
		d := realisticDeployment("sel", name)
		d.Labels["team"] = team
		if err := kube.Client.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(Config{Rest: kube.Config})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{synced: map[schema.GroupVersionKind]int{}}
	m.Set(deployments, Requirement{Fields: imageFields(), LabelSelector: "team=checkout"})
	go func() { _ = m.Run(ctx, rec) }()
	keys := func(sync int, want ...string) {
		t.Helper()
		testenv.Eventually(t, 60*time.Second, fmt.Sprintf("cached %v", want), func() error {
			store, synced, ok := m.Store(deployments)
			if rec.syncs(deployments) < sync || !ok || !synced {
				return fmt.Errorf("%d syncs, want %d", rec.syncs(deployments), sync)
			}
			if got := storeKeys(t, store); !slices.Equal(got, want) {
				return fmt.Errorf("cached %v", got)
			}
			return nil
		})
	}
	t.Run("a label selector lists only the objects that match", func(t *testing.T) {
		keys(1, "sel/cart", "sel/ship")
	})
	t.Run("an object whose labels stop matching leaves the cache", func(t *testing.T) {
		d := realisticDeployment("sel", "ship")
		if err := kube.Client.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
			t.Fatal(err)
		}
		d.Labels["team"] = "shipping"
		if err := kube.Client.Update(ctx, d); err != nil {
			t.Fatal(err)
		}
		keys(1, "sel/cart")
	})
	t.Run("a field selector restarts the informer with it", func(t *testing.T) {
		m.Set(deployments, Requirement{Fields: imageFields(), FieldSelector: "metadata.name=pay"})
		keys(2, "sel/pay")
	})
}
