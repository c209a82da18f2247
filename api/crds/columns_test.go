package crds_test

import (
	"io/fs"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/api/crds"
)

// Every kind says what is wrong in kubectl get: the reason of its main
// condition by default, the message with -o wide.
func TestEveryKindShowsReasonAndMessageColumns(t *testing.T) {
	files, err := fs.Glob(crds.FS, "*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs embedded (%v)", err)
	}
	for _, f := range files {
		b, err := fs.ReadFile(crds.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range crd.Spec.Versions {
			t.Run(crd.Spec.Names.Kind+"/"+v.Name, func(t *testing.T) {
				cols := map[string]apiextensionsv1.CustomResourceColumnDefinition{}
				for _, c := range v.AdditionalPrinterColumns {
					cols[c.Name] = c
				}
				for name, want := range map[string]struct {
					field    string
					priority int32
				}{"Reason": {".reason", 0}, "Message": {".message", 1}} {
					c, ok := cols[name]
					switch {
					case !ok:
						t.Errorf("no %s column", name)
					case !strings.HasPrefix(c.JSONPath, ".status.conditions[?(@.type==") || !strings.HasSuffix(c.JSONPath, want.field):
						t.Errorf("the %s column reads %s, want a condition's %s", name, c.JSONPath, want.field)
					case c.Priority != want.priority:
						t.Errorf("the %s column has priority %d, want %d", name, c.Priority, want.priority)
					}
				}
			})
		}
	}
}
