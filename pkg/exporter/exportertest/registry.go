package exportertest

import (
	"go/parser"
	"go/token"
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
//     (sinktest.Run) against a test peer and read the type's docs page;
//   - no type name is written anywhere else it is looked for
//     (checkNamesStayInPlace): not in a comment of the API outside
//     apiPlaces (a field comment lands in every CRD), not in a comment of
//     the family's service outside its Backends file, and the backend's
//     package is imported by the Backends file and the cross-backend tests
//     only.
//
// Adding a backend to a family is then: its package, its Backends line,
// the API (constant, enum, block, CEL, its Validate line) and its docs
// page; this check names whichever is missing, and any fifth place.
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
	checkNamesStayInPlace(t, root, family, backends)
}

// apiPlaces are the files of api/v1alpha1 that name backend types on
// purpose: the family's type constants, enum, blocks, and CEL rules (the
// snapshot rules are generated from api/v1alpha1/internal/snapshotcel,
// which is not scanned), normalisation of established spellings, and the
// tables of sink_validate.go (endpoint forms, blocks), sink_endpoints.go
// (address fields), sink_secrets.go (Secret references of blocks) and
// sink_options.go (honoured options). Every other comment of the package
// points at spec.type instead of naming types.
var apiPlaces = []string{
	"snapshotsink_types.go", "snapshotsink_blocks.go", "snapshotsink_normalize.go",
	"databasesink_types.go", "databasesink_blocks.go",
	"eventsink_types.go",
	"sink_validate.go", "sink_endpoints.go", "sink_secrets.go", "sink_options.go",
}

// crossBackendTests are the tests outside a backend's package that name
// every backend of a family on purpose (docs/development.md): the
// Secret-namespace test of the family and the dependency test of the
// services. The test peer (pkg/testenv, deploy/tools/build.sh) is named by
// the peer, not the type, and docs/ names backends on purpose.
func crossBackendTests(family busv1.Family) []string {
	return []string{"services/" + string(family) + "exporter/secretref_test.go", "services/deps_test.go"}
}

// checkNamesStayInPlace fails when a backend's type is named outside its
// places: in a comment of api/v1alpha1 outside apiPlaces, in a comment of
// the family's service package outside its Backends file, or as an import
// of its package outside that file, its own package and the cross-backend
// tests.
func checkNamesStayInPlace(t *testing.T, root string, family busv1.Family, backends []backend.Backend) {
	t.Helper()
	service := "services/" + string(family) + "exporter"
	backendsFile := service + "/" + string(family) + "exporter.go"
	var types []string
	for _, b := range backends {
		types = append(types, b.Type())
	}
	for _, dir := range []string{"api/v1alpha1", service} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			rel := filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator)))
			base := filepath.Base(f)
			if strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "zz_generated") || rel == backendsFile ||
				(dir == "api/v1alpha1" && slices.Contains(apiPlaces, base)) {
				continue
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, cg := range file.Comments {
				for _, c := range cg.List {
					if typ := namedType(c.Text, types); typ != "" {
						t.Errorf("%s:%d names the %s backend %s in a comment, outside the places of a backend "+
							"(docs/development.md): point at spec.type, or list backends where Backends or the API's tables do",
							rel, fset.Position(c.Pos()).Line, family, typ)
					}
				}
			}
		}
	}

	allowed := append(crossBackendTests(family), backendsFile)
	imports := map[string]string{} // import path -> type
	for _, b := range backends {
		imports["kollect.dev/kollect/"+packageDir(b)] = b.Type()
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if slices.Contains(allowed, rel) {
			return nil
		}
		file, perr := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if perr != nil {
			return nil //nolint:nilerr // a file that does not parse is the build's to report, not this check's
		}
		for _, imp := range file.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if typ, ok := imports[p]; ok && filepath.ToSlash(filepath.Dir(rel)) != strings.TrimPrefix(p, "kollect.dev/kollect/") {
				t.Errorf("%s imports the %s backend %s; only %s and the cross-backend tests %v may", rel, family, typ, backendsFile,
					crossBackendTests(family))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// word is a run of letters and digits.
var word = regexp.MustCompile(`[A-Za-z0-9]+`)

// namedType returns the first of types that text names: a word that is
// the type, or the type with a suffix of up to two letters ("PostgreSQL"),
// or two words that spell it ("Azure Blob", "Big Query"); case is ignored.
// "" when none.
func namedType(text string, types []string) string {
	words := word.FindAllString(strings.ToLower(text), -1)
	for i, w := range words {
		for _, typ := range types {
			if w == typ || (strings.HasPrefix(w, typ) && len(w)-len(typ) <= 2 && !slices.Contains(types, w)) ||
				(i+1 < len(words) && w+words[i+1] == typ) {
				return typ
			}
		}
	}
	return ""
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
