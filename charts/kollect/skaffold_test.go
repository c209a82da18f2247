package chart_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// skaffoldConfig is the part of skaffold.yaml these tests read.
type skaffoldConfig struct {
	Build    skaffoldBuild  `json:"build"`
	Deploy   skaffoldDeploy `json:"deploy"`
	Profiles []struct {
		Name   string         `json:"name"`
		Build  skaffoldBuild  `json:"build"`
		Deploy skaffoldDeploy `json:"deploy"`
	} `json:"profiles"`
}

type skaffoldBuild struct {
	Artifacts []struct {
		Image string `json:"image"`
	} `json:"artifacts"`
}

type skaffoldDeploy struct {
	Helm struct {
		Releases []skaffoldRelease `json:"releases"`
	} `json:"helm"`
}

type skaffoldRelease struct {
	Name              string            `json:"name"`
	ValuesFiles       []string          `json:"valuesFiles"`
	SetValueTemplates map[string]string `json:"setValueTemplates"`
	SetValues         map[string]any    `json:"setValues"`
}

const kollectImages = "ghcr.io/kollect-dev/"

// Every Kollect image a skaffold profile deploys is one that profile
// builds: a service missing from the build (or from the image overrides)
// would run the released image, not the work tree.
func TestEverySkaffoldProfileBuildsTheImagesItDeploys(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "skaffold.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c skaffoldConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("skaffold.yaml: %v", err)
	}
	profiles := map[string]struct {
		build  skaffoldBuild
		deploy skaffoldDeploy
	}{"(default)": {c.Build, c.Deploy}}
	for _, p := range c.Profiles {
		build, deploy := p.Build, p.Deploy
		if len(build.Artifacts) == 0 {
			build = c.Build
		}
		if len(deploy.Helm.Releases) == 0 {
			deploy = c.Deploy
		}
		profiles[p.Name] = struct {
			build  skaffoldBuild
			deploy skaffoldDeploy
		}{build, deploy}
	}
	for name, p := range profiles {
		t.Run(name, func(t *testing.T) {
			built := map[string]bool{}
			for _, a := range p.build.Artifacts {
				built[strings.TrimPrefix(a.Image, kollectImages)] = true
			}
			rel := kollectRelease(t, p.deploy)
			var args []string
			for _, f := range rel.ValuesFiles {
				args = append(args, strings.TrimPrefix(f, "charts/kollect/"))
			}
			var sets []string
			for k, v := range rel.SetValueTemplates {
				binary, ok := strings.CutPrefix(k, "image.overrides.")
				if !ok {
					continue
				}
				if want := "{{.IMAGE_FULLY_QUALIFIED_ghcr_io_kollect_dev_" + binary + "}}"; v != want {
					t.Errorf("%s = %q, want %q", k, v, want)
				}
				if !built[binary] {
					t.Errorf("%s is set but the profile builds no %s%s", k, kollectImages, binary)
				}
				sets = append(sets, k+"=skaffold/"+binary)
			}
			for k, v := range rel.SetValues {
				b, err := yaml.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				sets = append(sets, k+"="+strings.TrimSpace(string(b)))
			}
			values := ""
			if len(args) > 0 {
				values = strings.Join(args, ",")
			}
			for _, o := range decode(t, render(t, values, sets...)) {
				for _, img := range kollectContainerImages(o) {
					if strings.HasPrefix(img, kollectImages) {
						t.Errorf("%s %s runs %s: the profile neither builds nor overrides it", o.GetKind(), o.GetName(), img)
					}
				}
			}
		})
	}
}

// kollectRelease returns the release of charts/kollect in d.
func kollectRelease(t *testing.T, d skaffoldDeploy) skaffoldRelease {
	t.Helper()
	for _, r := range d.Helm.Releases {
		if r.Name == "kollect" {
			return r
		}
	}
	t.Fatal("no helm release named kollect")
	return skaffoldRelease{}
}

// kollectContainerImages returns the container images of a workload.
func kollectContainerImages(o *unstructured.Unstructured) []string {
	var out []string
	for _, field := range []string{"containers", "initContainers"} {
		cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", field)
		for _, c := range cs {
			if m, ok := c.(map[string]any); ok {
				if img, ok := m["image"].(string); ok {
					out = append(out, img)
				}
			}
		}
	}
	return out
}
