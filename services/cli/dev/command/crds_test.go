package command

import (
	"context"
	"strings"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/restmapper"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// TestInstallCRDsReturnsOnceEveryKindIsServed installs Kollect's CRDs on a
// real API server that has none, the way `kollect dev --install-crds` does,
// and maps every kind with a REST mapper built from discovery right after:
// the services start exactly so, and a kind applied but not yet served
// failed them with "no matches for kind" (3 of 7 fresh starts).
func TestInstallCRDsReturnsOnceEveryKindIsServed(t *testing.T) {
	kube := testenv.StartBareKube(t)
	ctx := context.Background()
	c, err := apiextensions.NewForConfig(kube.Env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if crds, err := c.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{}); err != nil || len(crds.Items) != 0 {
		t.Fatalf("the bare API server has CRDs %v (%v), want none", crds, err)
	}
	if err := installCRDs(ctx, kube.Env.Config); err != nil {
		t.Fatalf("installCRDs: %v", err)
	}
	groups, err := restmapper.GetAPIGroupResources(discovery.NewDiscoveryClientForConfigOrDie(kube.Env.Config))
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	kinds := 0
	for gvk := range testenv.Scheme().AllKnownTypes() {
		if gvk.GroupVersion() != v1alpha1.GroupVersion || !strings.HasPrefix(gvk.Kind, "Kollect") || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		kinds++
		if _, err := mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version); err != nil {
			t.Errorf("right after installCRDs: %v", err)
		}
	}
	if kinds < 11 {
		t.Errorf("mapped %d kollect.dev kinds, want the 11 or more of the API", kinds)
	}

	// A CRD that does not exist is an error naming it, not a minute of waiting.
	err = waitCRDsServed(ctx, c, []string{"nothings.kollect.dev"})
	if err == nil || !strings.Contains(err.Error(), "nothings.kollect.dev") {
		t.Fatalf("err = %v, want one naming nothings.kollect.dev", err)
	}
}
