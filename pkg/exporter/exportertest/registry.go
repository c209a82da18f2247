package exportertest

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/testenv"
)

// CheckRegistry checks that a family's backends are registered everywhere
// a type must be, and nowhere else:
//
//   - the CRD's spec.type enum (api/crds) lists exactly the types of
//     backends (the family's Backends);
//   - spec validates each type: validate(type) (the spec's Validate on a
//     spec of that type) does not refuse spec.type as unsupported, so the
//     type has its line in the API's table;
//   - docs/sinks/<type>.md exists, and docs/sinks/README.md's table lists
//     exactly these types for the family;
//   - the backend's package tests run the conformance suite
//     (sinktest.Run) against a test peer and read the type's docs page.
//
// Adding a backend to a family is then: its package, its Backends line,
// the API (constant, enum, block, CEL, its Validate line) and its docs
// page; this check names whichever is missing.
func CheckRegistry(t *testing.T, family busv1.Family, backends []backend.Backend, validate func(typ string) field.ErrorList) {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, b := range backends {
		types = append(types, b.Type())
	}
	slices.Sort(types)
	kind := string(family.SinkKind())
	if enum := crdTypeEnum(t, root, kind); !slices.Equal(enum, types) {
		t.Errorf("the %s CRD's spec.type enum is %v, the family's Backends are %v", kind, enum, types)
	}
	if listed := readmeTypes(t, root, string(family)); !slices.Equal(listed, types) {
		t.Errorf("docs/sinks/README.md lists %v for family %s, the family's Backends are %v", listed, family, types)
	}
	for _, b := range backends {
		typ := b.Type()
		for _, e := range validate(typ) {
			if e.Field == "spec.type" && e.Type == field.ErrorTypeNotSupported {
				t.Errorf("type %s: the spec's Validate does not know it (add its line to api/v1alpha1/sink_validate.go)", typ)
			}
		}
		page := filepath.Join("docs", "sinks", typ+".md")
		if _, err := os.Stat(filepath.Join(root, page)); err != nil {
			t.Errorf("type %s has no docs page: %v", typ, err)
		}
		dir := packageDir(b)
		if !testsCall(t, root, dir, "sinktest.Run(") {
			t.Errorf("type %s: no test in %s runs the conformance suite (sinktest.Run) against a test peer", typ, dir)
		}
		if !testsCall(t, root, dir, filepath.ToSlash(page)) {
			t.Errorf("type %s: no test in %s reads %s", typ, dir, page)
		}
	}
}

// crdTypeEnum returns the sorted spec.type enum of kind's CRD.
func crdTypeEnum(t *testing.T, root, kind string) []string {
	t.Helper()
	raw, err := fs.ReadFile(os.DirFS(root), "api/crds/kollect.dev_"+strings.ToLower(kind)+"s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties struct {
							Spec struct {
								Properties struct {
									Type struct {
										Enum []string `json:"enum"`
									} `json:"type"`
								} `json:"properties"`
							} `json:"spec"`
						} `json:"properties"`
					} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &crd); err != nil || len(crd.Spec.Versions) == 0 {
		t.Fatalf("decode the %s CRD: %v", kind, err)
	}
	enum := slices.Clone(crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties.Spec.Properties.Type.Enum)
	slices.Sort(enum)
	return enum
}

// readmeRow is a row of docs/sinks/README.md's table: | family | `type` | ...
var readmeRow = regexp.MustCompile("(?m)^\\|\\s*([a-z]+)\\s*\\|\\s*`([a-z0-9]+)`\\s*\\|")

// readmeTypes returns the sorted types docs/sinks/README.md lists for
// family.
func readmeTypes(t *testing.T, root, family string) []string {
	t.Helper()
	raw, err := fs.ReadFile(os.DirFS(root), "docs/sinks/README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range readmeRow.FindAllStringSubmatch(string(raw), -1) {
		if m[1] == family {
			out = append(out, m[2])
		}
	}
	slices.Sort(out)
	return out
}

// packageDir is the folder, relative to the repository root, of the
// package b's type is declared in.
func packageDir(b backend.Backend) string {
	typ := reflect.TypeOf(b)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	return strings.TrimPrefix(typ.PkgPath(), "kollect.dev/kollect/")
}

// testsCall reports whether a _test.go file of dir (relative to root)
// contains s.
func testsCall(t *testing.T, root, dir, s string) bool {
	t.Helper()
	fsys := os.DirFS(root)
	files, err := fs.Glob(fsys, dir+"/*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), s) {
			return true
		}
	}
	return false
}
