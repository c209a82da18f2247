package chart_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// chartMeta is the part of Chart.yaml Artifact Hub reads.
type chartMeta struct {
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	AppVersion  string            `json:"appVersion"`
	Annotations map[string]string `json:"annotations"`
}

// artifactHubCRD is one entry of the artifacthub.io/crds annotation.
type artifactHubCRD struct {
	Kind        string `json:"kind"`
	Version     string `json:"version"`
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
}

func readChartMeta(t *testing.T, dir string) chartMeta {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m chartMeta
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// annotationList decodes a Chart.yaml annotation holding a YAML list.
func annotationList[T any](t *testing.T, m chartMeta, key string) []T {
	t.Helper()
	var out []T
	if err := yaml.UnmarshalStrict([]byte(m.Annotations[key]), &out); err != nil || len(out) == 0 {
		t.Fatalf("%s annotation of %s: %v (%d entries)", key, m.Name, err, len(out))
	}
	return out
}

func TestArtifactHubMetadataMatchesTheCharts(t *testing.T) {
	var want []artifactHubCRD
	for _, o := range decode(t, helm(t, "template", "kollect-crds", "../kollect-crds")) {
		versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		want = append(want, artifactHubCRD{Kind: kind, Version: versions[0].(map[string]any)["name"].(string), Name: o.GetName()})
	}
	license, err := os.ReadFile(repoPath(t, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{".", "../kollect-crds"} {
		m := readChartMeta(t, dir)
		t.Run(m.Name+" lists every CRD it installs", func(t *testing.T) {
			got := annotationList[artifactHubCRD](t, m, "artifacthub.io/crds")
			for i := range got {
				if got[i].DisplayName == "" || !strings.HasPrefix(got[i].Description, got[i].Kind+" ") {
					t.Errorf("%s: want a display name and a description starting with the kind", got[i].Kind)
				}
				got[i].DisplayName, got[i].Description = "", ""
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("artifacthub.io/crds differs from the CRDs (-CRDs +annotation):\n%s", diff)
			}
		})
		t.Run(m.Name+" names the repository's licence and https links", func(t *testing.T) {
			if m.Annotations["artifacthub.io/license"] != "Apache-2.0" || !strings.Contains(string(license), "Apache License\n                           Version 2.0") {
				t.Errorf("artifacthub.io/license %q does not name LICENSE's licence", m.Annotations["artifacthub.io/license"])
			}
			for _, l := range annotationList[struct{ Name, URL string }](t, m, "artifacthub.io/links") {
				if l.Name == "" || !strings.HasPrefix(l.URL, "https://") {
					t.Errorf("link %+v: want a name and an https URL", l)
				}
			}
			for _, k := range []string{"artifacthub.io/containsSecurityUpdates", "artifacthub.io/prerelease"} {
				if v := m.Annotations[k]; v != "true" && v != "false" {
					t.Errorf("%s = %q, want true or false", k, v)
				}
			}
		})
	}
	// Optional components count: Artifact Hub scans every listed image,
	// and a user who enables one runs its image.
	t.Run("kollect lists exactly the images its default values and optional components run", func(t *testing.T) {
		var rendered []string
		for _, o := range decode(t, render(t, "", "query.enabled=true")) {
			if o.GetKind() == "Deployment" || o.GetKind() == "StatefulSet" {
				rendered = append(rendered, firstContainer(o)["image"].(string))
			}
		}
		var listed []string
		for _, i := range annotationList[struct{ Name, Image string }](t, readChartMeta(t, "."), "artifacthub.io/images") {
			listed = append(listed, i.Image)
			if i.Name == "" || !strings.HasSuffix(i.Image, i.Name+":"+strings.SplitN(i.Image, ":", 2)[1]) {
				t.Errorf("image %+v: want the name of the image", i)
			}
		}
		slices.Sort(rendered)
		slices.Sort(listed)
		if diff := cmp.Diff(rendered, listed); diff != "" {
			t.Errorf("artifacthub.io/images differs from the rendered images (-rendered +annotation):\n%s", diff)
		}
	})
}
