package restmap_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli/internal/restmap"
)

type mapped struct {
	GVK        schema.GroupVersionKind
	Resource   string
	Namespaced bool
}

func summary(m *meta.RESTMapping) mapped {
	return mapped{GVK: m.GroupVersionKind, Resource: m.Resource.Resource, Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}
}

var (
	deployments = mapped{GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Resource: "deployments", Namespaced: true}
	namespaces  = mapped{GVK: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Resource: "namespaces"}
	inventories = mapped{GVK: schema.GroupVersionKind{Group: "kollect.dev", Version: "v1alpha1", Kind: "KollectInventory"}, Resource: "kollectinventories", Namespaced: true}
)

// TestMapperAgainstARealAPIServer maps kinds and kubectl resource arguments
// with the discovery documents of a real kube-apiserver holding Kollect's
// CRDs, as client-go's discovery RESTMapper and shortcut expander would.
func TestMapperAgainstARealAPIServer(t *testing.T) {
	k := testenv.StartKube(t)
	ctx := context.Background()
	m, err := restmap.New(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a kind maps to its resource and scope", func(t *testing.T) {
		for _, want := range []mapped{deployments, namespaces, inventories} {
			got, err := m.RESTMapping(ctx, want.GVK)
			if err != nil {
				t.Fatalf("%s: %v", want.GVK, err)
			}
			if d := cmp.Diff(want, summary(got)); d != "" {
				t.Errorf("%s (-want +got):\n%s", want.GVK, d)
			}
		}
	})
	t.Run("an unknown kind is a no-match error", func(t *testing.T) {
		_, err := m.RESTMapping(ctx, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Nothing"})
		var nm *meta.NoKindMatchError
		if !errors.As(err, &nm) {
			t.Errorf("err %v, want a NoKindMatchError", err)
		}
	})
	t.Run("an unserved group version names it", func(t *testing.T) {
		_, err := m.RESTMapping(ctx, schema.GroupVersionKind{Group: "example.com", Version: "v9", Kind: "Thing"})
		if err == nil || err.Error() != "discover example.com/v9: GET /apis/example.com/v9: 404 Not Found" {
			t.Errorf("err %v, want the group version's 404", err)
		}
	})
	for _, tc := range []struct {
		arg  string
		want mapped
	}{
		{"deployments", deployments},
		{"deployment", deployments},
		{"deploy", deployments},
		{"Deployment", deployments},
		{"deployments.apps", deployments},
		{"deployments.v1.apps", deployments},
		{"ns", namespaces},
		{"namespaces", namespaces},
		{"kinv", inventories},
		{"kollectinventories.kollect.dev", inventories},
		{"kollectinventories.kollect", inventories},
	} {
		t.Run("resource argument "+tc.arg, func(t *testing.T) {
			got, err := m.ResourceFor(ctx, tc.arg)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, summary(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	for _, arg := range []string{"nothings", "deployments.example.com", "deployments.v9.apps.nothing"} {
		t.Run("unknown resource argument "+arg, func(t *testing.T) {
			_, err := m.ResourceFor(ctx, arg)
			if err == nil || err.Error() != `the server doesn't have a resource type "`+arg+`"` {
				t.Errorf("err %v, want the server has no such resource type", err)
			}
		})
	}
}
