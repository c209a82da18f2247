package extract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// podObject is a small object with the shapes the JSONPath tests need.
const podObject = `{
  "metadata": {"name": "web-0", "labels": {"app": "web", "app.kubernetes.io/name": "web"},
    "annotations": {"example.com/a.b": "dotted"}},
  "spec": {
    "replicas": 2,
    "paused": false,
    "ratio": 0.5,
    "nothing": null,
    "containers": [
      {"name": "app", "image": "app:1", "ports": [{"containerPort": 80, "name": "http"}, {"containerPort": 443, "name": "https"}]},
      {"name": "sidecar", "image": "side:2", "ports": [{"containerPort": 9090, "name": "metrics"}]},
      {"name": "init", "image": "init:3"}
    ],
    "nested": {"b": {"name": "nb"}, "a": {"name": "na", "deeper": [{"name": "nd"}]}}
  }
}`

func TestJSONPathCompilesToTheSubsetOrFallsBack(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		fallback bool
		multi    bool
	}{
		{"a dotted path compiles", "$.spec.replicas", false, false},
		{"a kubectl path compiles", "{.spec.replicas}", false, false},
		{"an index compiles", "$.spec.containers[0].image", false, false},
		{"a negative index compiles", "$.spec.containers[-1].image", false, false},
		{"a wildcard compiles and is multi-valued", "$.spec.containers[*].image", false, true},
		{"a dot wildcard compiles and is multi-valued", "$.metadata.labels.*", false, true},
		{"recursive descent compiles and is multi-valued", "$..name", false, true},
		{"an equality filter compiles and is multi-valued", `$.spec.containers[?(@.name=="app")].image`, false, true},
		{"an inequality filter with spaces compiles", `{.spec.containers[?(@.name != 'app')].image}`, false, true},
		{"a quoted key compiles", "$.metadata.annotations['example.com/a.b']", false, false},
		{"a slice falls back", "$.spec.containers[0:2].image", true, true},
		{"a union falls back", "$.spec.containers[0,2].image", true, true},
		{"a slice without a start falls back", "$.spec.containers[:2].image", true, true},
		{"a slice with a step falls back", "$.spec.containers[::2].image", true, true},
		{"a union of quoted keys falls back", "$.metadata.labels['a','b']", true, true},
		{"a comparison filter falls back", "$.spec.containers[?(@.ports[0].containerPort > 100)].name", true, true},
		{"an existence filter falls back", "$.spec.containers[?(@.ports)].name", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ca compiledAttr
			if err := compileJSONPathAttribute(&ca, tc.path, &FieldSet{}); err != nil {
				t.Fatalf("compile %q: %v", tc.path, err)
			}
			if got := ca.fallback != nil; got != tc.fallback {
				t.Errorf("fallback = %v, want %v", got, tc.fallback)
			}
			if ca.multi != tc.multi {
				t.Errorf("multi = %v, want %v", ca.multi, tc.multi)
			}
		})
	}
}

func TestJSONPathRejectsInvalidPaths(t *testing.T) {
	tests := []struct{ name, path string }{
		{"an unclosed bracket", "$.spec.containers[0"},
		{"an empty field name", "$.spec..[0]"},
		{"text around a kubectl expression", "name: {.metadata.name}"},
		{"two kubectl expressions", "{.metadata.name}{.metadata.namespace}"},
		{"a kubectl range", "{range .items[*]}{.name}{end}"},
		{"an unterminated quoted key", "$.metadata.annotations['a"},
		{"a dot wildcard in a fallback path (map order is random)", "$.spec.*[0:1]"},
		{"recursive descent in a fallback path", "$..containers[0:1]"},
		{"a bare word", "spec.replicas"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ca compiledAttr
			if err := compileJSONPathAttribute(&ca, tc.path, &FieldSet{}); err == nil {
				t.Fatalf("compile %q: no error", tc.path)
			}
		})
	}
}

func TestJSONPathEvaluates(t *testing.T) {
	obj := decodeObject(t, podObject)
	tests := []struct {
		name  string
		path  string
		want  any
		found bool
	}{
		{"a field", "$.spec.replicas", int64(2), true},
		{"a kubectl field", "{.metadata.name}", "web-0", true},
		{"a false boolean is a value", "$.spec.paused", false, true},
		{"a null is missing", "$.spec.nothing", nil, false},
		{"a missing key is missing", "$.spec.missing.deeper", nil, false},
		{"an index", "$.spec.containers[1].image", "side:2", true},
		{"a negative index counts from the end", "$.spec.containers[-1].image", "init:3", true},
		{"an index out of range is missing", "$.spec.containers[7].image", nil, false},
		{"an index on a map is missing", "$.spec.nested[0]", nil, false},
		{"a field of a string is missing", "$.metadata.name.first", nil, false},
		{"a quoted key holding dots", "$.metadata.annotations['example.com/a.b']", "dotted", true},
		{"a double-quoted key", `$.metadata.labels["app.kubernetes.io/name"]`, "web", true},
		{"an escaped dot", `{.metadata.labels.app\.kubernetes\.io/name}`, "web", true},
		{"the root is the whole object", "$", obj, true},
		{"a wildcard over a list", "$.spec.containers[*].image", []any{"app:1", "side:2", "init:3"}, true},
		{"a wildcard over a map, keys sorted", "$.metadata.labels.*", []any{"web", "web"}, true},
		{"nested wildcards skip elements without the field", "$.spec.containers[*].ports[*].containerPort", []any{int64(80), int64(443), int64(9090)}, true},
		{"a wildcard that matches nothing is an empty list", "$.spec.containers[*].missing", []any{}, true},
		{"a wildcard below a missing key is an empty list", "$.spec.missing[*].image", []any{}, true},
		{"recursive descent in pre-order with sorted keys", "$.spec.nested..name", []any{"na", "nd", "nb"}, true},
		{"an equality filter", `$.spec.containers[?(@.name=="sidecar")].image`, []any{"side:2"}, true},
		{"an inequality filter", `$.spec.containers[?(@.name!="sidecar")].image`, []any{"app:1", "init:3"}, true},
		{"a filter on a number", `$.spec.containers[*].ports[?(@.containerPort==443)].name`, []any{"https"}, true},
		{"a filter on a non-list aborts like kubectl", `$.spec.nested[?(@.name=="na")]`, nil, false},
		{"an index out of range under a wildcard aborts like kubectl", "$.spec.containers[*].ports[1].name", nil, false},
		{"a fallback slice", "$.spec.containers[0:2].name", []any{"app", "sidecar"}, true},
		{"a fallback union", "$.spec.containers[0,2].name", []any{"app", "init"}, true},
		{"a fallback comparison filter", "$.spec.containers[*].ports[?(@.containerPort > 100)].name", []any{"https", "metrics"}, true},
		{"a fallback existence filter", "$.spec.containers[?(@.ports)].name", []any{"app", "sidecar"}, true},
		{"a fallback error is missing", "$.spec.containers[5:9].name", nil, false},
		{"a fallback slice with a step", "$.spec.containers[::2].name", []any{"app", "init"}, true},
		{"a fallback union of keys", "$.metadata.labels['app','missing']", []any{"web"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ca compiledAttr
			if err := compileJSONPathAttribute(&ca, tc.path, &FieldSet{}); err != nil {
				t.Fatalf("compile %q: %v", tc.path, err)
			}
			got, found, err := ca.value(obj, obj, &evalState{})
			if err != nil {
				t.Fatalf("value: %v", err)
			}
			if found != tc.found {
				t.Fatalf("found = %v, want %v (value %v)", found, tc.found, got)
			}
			if diff := cmp.Diff(tc.want, got); found && diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
		})
	}
}
