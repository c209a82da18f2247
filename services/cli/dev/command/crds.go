package command

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/api/crds"
)

// installCRDs server-side applies every kollect.dev CRD and waits until
// the API server serves them all.
func installCRDs(ctx context.Context, rc *rest.Config) error {
	c, err := apiextensions.NewForConfig(rc)
	if err != nil {
		return err
	}
	files, err := fs.Glob(crds.FS, "*.yaml")
	if err != nil {
		return err
	}
	var names []string
	for _, name := range files {
		b, err := fs.ReadFile(crds.FS, name)
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(b, &crd); err != nil {
			return fmt.Errorf("decode %s: %w", name, err)
		}
		crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		body, err := yaml.YAMLToJSON(b)
		if err != nil {
			return err
		}
		force := true
		_, err = c.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, crd.Name, "application/apply-patch+yaml", body,
			metav1.PatchOptions{FieldManager: "kollect-dev", Force: &force})
		if err != nil {
			return fmt.Errorf("apply CRD %s: %w", crd.Name, err)
		}
		names = append(names, crd.Name)
	}
	return waitCRDsServed(ctx, c, names)
}

// crdServeTimeout bounds how long `kollect dev --install-crds` waits for the
// API server to serve the CRDs it applied.
const crdServeTimeout = time.Minute

// waitCRDsServed returns once every CRD named is Established with its names
// accepted and discovery lists its resource: the services' REST mappers
// read discovery at start, and a kind applied a moment ago is not there yet
// ("no matches for kind").
func waitCRDsServed(ctx context.Context, c apiextensions.Interface, names []string) error {
	var pending string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, crdServeTimeout, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			crd, err := c.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, fmt.Errorf("read CRD %s: %w", name, err)
			}
			if !served(crd) || !discovered(c, crd) {
				pending = name
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil && pending != "" {
		return fmt.Errorf("CRD %s is not served after %v (Established, NamesAccepted, discovery): %w", pending, crdServeTimeout, err)
	}
	return err
}

// served reports whether crd's Established and NamesAccepted are True.
func served(crd *apiextensionsv1.CustomResourceDefinition) bool {
	ok := 0
	for _, c := range crd.Status.Conditions {
		if (c.Type == apiextensionsv1.Established || c.Type == apiextensionsv1.NamesAccepted) && c.Status == apiextensionsv1.ConditionTrue {
			ok++
		}
	}
	return ok == 2
}

// discovered reports whether discovery lists crd's plural in every served
// version.
func discovered(c apiextensions.Interface, crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		list, err := c.Discovery().ServerResourcesForGroupVersion(crd.Spec.Group + "/" + v.Name)
		if err != nil || !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == crd.Spec.Names.Plural }) {
			return false
		}
	}
	return true
}
