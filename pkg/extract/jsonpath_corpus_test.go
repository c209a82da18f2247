package extract

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/util/jsonpath"
)

// corpusObjects are the objects the compiled evaluator is compared with client-go on: a real
// Deployment plus edge shapes (nulls, wrong kinds, empty lists, mixed elements).
func corpusObjects(t *testing.T) map[string]map[string]any {
	objs := map[string]map[string]any{
		"deployment": loadObject(t, "deployment.json"),
		"pod":        decodeObject(t, podObject),
	}
	for name, js := range map[string]string{
		"no containers":         `{"spec": {"containers": []}}`,
		"null name":             `{"spec": {"containers": [{"name": null, "image": "a"}, {"name": "x", "image": "b"}]}}`,
		"containers not a list": `{"spec": {"containers": "notalist"}}`,
		"containers a map":      `{"spec": {"containers": {"name": "m", "image": "map"}}}`,
		"mixed elements":        `{"spec": {"containers": [1, "two", null, {"name": "n", "image": 1.5}]}}`,
		"null spec":             `{"spec": null, "metadata": {"name": "x", "labels": {}}}`,
		"float image":           `{"spec": {"containers": [{"name": "a", "image": 1.5}, {"name": "b", "image": "str"}]}}`,
		"bool names":            `{"spec": {"containers": [{"name": true, "image": "t"}, {"name": false, "image": "f"}]}}`,
	} {
		objs[name] = decodeObject(t, js)
	}
	return objs
}

// corpusPaths are paths inside the compiled subset.
var corpusPaths = []string{
	"$", "$.spec", "$.spec.replicas", "{.spec.replicas}", "$.metadata.name", "$.metadata['name']",
	"$.spec.containers", "$.spec.containers[0]", "$.spec.containers[0].name", "$.spec.containers[-1].name",
	"$.spec.containers[3].name", "$.spec.containers[-9].name", "$.spec.containers[*]", "$.spec.containers[*].name",
	"{.spec.containers[*].image}", "$.spec.containers[*].ports[*].containerPort", "$.spec.containers[*].ports[0].name",
	"$.spec.containers.*", "$.spec.containers.*.name", "$.metadata.labels.*", "$..name", "$.spec..name",
	"$..containerPort", "$..image", "$.spec.template.spec.containers[*].env[*].name",
	"$.spec.template.spec.containers[?(@.name==\"envoy\")].image",
	"$.spec.template.spec.containers[*].env[?(@.name!='LOG_LEVEL')].name",
	"$.spec.containers[?(@.name==\"app\")].image", "$.spec.containers[?(@.name!=\"app\")].image",
	"$.spec.containers[?(@.image==1.5)].name", "$.spec.containers[?(@.name==true)].image",
	"$.spec.containers[*].ports[?(@.containerPort==443)].name", "$.status.conditions[?(@.type==\"Available\")].status",
	"$.spec.containers[0].ports[-1].containerPort", "$.spec.replicas[0]", "$.spec.replicas[*]",
}

// mapIterating paths visit map keys: client-go's order is random, so results compare as sets.
func mapIterating(path string) bool {
	return strings.Contains(path, "..") || strings.Contains(path, ".*")
}

func clientGoResults(t *testing.T, path string, obj map[string]any) ([]any, bool) {
	t.Helper()
	tmpl := path
	if strings.HasPrefix(path, "$") {
		tmpl = "{" + path + "}"
	}
	j := jsonpath.New("reference").AllowMissingKeys(true)
	if err := j.Parse(tmpl); err != nil {
		t.Fatalf("client-go parse %q: %v", path, err)
	}
	res, err := j.FindResults(obj)
	if err != nil {
		return nil, false
	}
	out := []any{}
	for _, r := range res[0] {
		out = append(out, r.Interface())
	}
	return out, true
}

func TestCompiledJSONPathMatchesClientGoOnTheCorpus(t *testing.T) {
	for objName, obj := range corpusObjects(t) {
		for _, path := range corpusPaths {
			t.Run(objName+" "+path, func(t *testing.T) {
				if objName == "containers not a list" && strings.Contains(path, ".*") {
					t.Skip("documented difference: client-go's .* yields a string's bytes")
				}
				jp, err := parseJSONPath(path)
				if err != nil {
					t.Fatalf("compile %q: %v", path, err)
				}
				want, wantOK := clientGoResults(t, path, obj)
				var got []any
				var gotOK bool
				if jp.multi {
					got, gotOK = jp.all(obj)
					if got == nil && gotOK {
						got = []any{}
					}
				} else {
					// A single path matches when client-go finds exactly one non-null value.
					v, found := jp.single(obj)
					got, gotOK = []any{}, true
					if found {
						got = []any{v}
					}
					if wantOK && len(want) == 1 && want[0] == nil {
						want = []any{}
					}
				}
				if !wantOK && !jp.multi {
					want, wantOK = []any{}, true // a single path that errors is missing
				}
				if gotOK != wantOK {
					t.Fatalf("ok = %v, client-go ok = %v (got %v, want %v)", gotOK, wantOK, got, want)
				}
				if !gotOK {
					return // both abort: the attribute is missing
				}
				if mapIterating(path) {
					got, want = sortedByPrint(got), sortedByPrint(want)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("compiled vs client-go (-client-go +compiled):\n%s", diff)
				}
			})
		}
	}
}

func sortedByPrint(l []any) []any {
	out := slices.Clone(l)
	slices.SortFunc(out, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return out
}

func TestCompiledJSONPathDiffersFromClientGoOnlyWhereDocumented(t *testing.T) {
	tests := []struct {
		name string
		obj  string
		path string
		want []any
	}{
		{"a quoted key holding dots is one key (client-go splits it)",
			`{"metadata": {"annotations": {"a.b": "x"}}}`, "$.metadata.annotations['a.b']", []any{"x"}},
		{"a dot wildcard on a string matches nothing (client-go yields its bytes)",
			`{"metadata": {"name": "ab"}}`, "$.metadata.name.*", []any{}},
		{"[*] on an empty list does not cut short later matches (a client-go bug)",
			`{"items": [{"l": []}, {"l": [1, 2]}]}`, "$.items[*].l[*]", []any{int64(1), int64(2)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := decodeObject(t, tc.obj)
			jp, err := parseJSONPath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			if jp.multi {
				got, _ = jp.all(obj)
			} else if v, ok := jp.single(obj); ok {
				got = []any{v}
			}
			if got == nil {
				got = []any{}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("compiled (-want +got):\n%s", diff)
			}
			ref, _ := clientGoResults(t, tc.path, obj)
			if cmp.Equal(ref, got) {
				t.Errorf("client-go agrees (%v): the documented difference is gone", ref)
			}
		})
	}
}
