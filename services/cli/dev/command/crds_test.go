package command

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/restmapper"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// TestInstallCRDsReturnsOnceEveryKindIsServed removes Kollect's CRDs from a
// real API server, installs them the way `kollect dev --install-crds` does,
// and maps every kind with a REST mapper built from discovery right after:
// the services start exactly so, and a kind applied but not yet served
// failed them with "no matches for kind" (3 of 7 fresh starts).
func TestInstallCRDsReturnsOnceEveryKindIsServed(t *testing.T) {
	kube := testenv.StartKube(t)
	ctx := context.Background()
	c, err := apiextensions.NewForConfig(kube.Env.Config)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := c.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range crds.Items {
		if crd.Spec.Group == v1alpha1.GroupVersion.Group {
			if err := c.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, crd.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The API server's finalizer removes a CRD once its (here no) objects
	// are gone: seconds usually, over a minute on a loaded runner.
	testenv.Eventually(t, 3*time.Minute, "Kollect's CRDs deleted", func() error {
		for _, crd := range crds.Items {
			if _, err := c.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("CRD %s: %v", crd.Name, err)
			}
		}
		return nil
	})

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
