package extract

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCELEvaluates(t *testing.T) {
	obj := decodeObject(t, podObject)
	tests := []struct {
		name    string
		expr    string
		want    any
		found   bool
		wantErr string
	}{
		{"a size", "size(object.spec.containers)", int64(3), true, ""},
		{"a map over a list", "object.spec.containers.map(c, c.image)", []any{"app:1", "side:2", "init:3"}, true, ""},
		{"two nested comprehensions", "object.spec.containers.map(c, c.?ports.orValue([]).map(p, p.containerPort))", []any{[]any{int64(80), int64(443)}, []any{int64(9090)}, []any{}}, true, ""},
		{"a filter and string functions", "object.spec.containers.filter(c, c.name.startsWith('s')).map(c, c.name.upperAscii())", []any{"SIDECAR"}, true, ""},
		{"an index by a constant key", `object.metadata.labels["app.kubernetes.io/name"]`, "web", true, ""},
		{"has() on a missing field", "has(object.spec.missing)", false, true, ""},
		{"an optional with a default", "object.?spec.missing.orValue(7)", int64(7), true, ""},
		{"a map literal", `{"replicas": object.spec.replicas, "ratio": object.spec.ratio}`, map[string]any{"replicas": int64(2), "ratio": 0.5}, true, ""},
		{"a value straight from the object", "object.metadata.labels", map[string]any{"app": "web", "app.kubernetes.io/name": "web"}, true, ""},
		{"a timestamp becomes RFC 3339", `timestamp("2025-01-02T03:04:05Z")`, "2025-01-02T03:04:05Z", true, ""},
		{"a duration becomes its string", `duration("90s")`, "1m30s", true, ""},
		{"bytes become base64", `b"hi"`, "aGk=", true, ""},
		{"list membership", `"app" in object.spec.containers.map(c, c.name)`, true, true, ""},
		{"list equality", "object.spec.containers == object.spec.containers", true, true, ""},
		{"list concatenation", "size(object.spec.containers + [1])", int64(4), true, ""},
		{"a double index into a list", "object.spec.containers[1.0].name", "sidecar", true, ""},
		{"exists over a list", `object.spec.containers.exists(c, c.name == "init")`, true, true, ""},
		{"a list converted to JSON", "dyn(object.spec.containers[0].ports).map(p, p.name)", []any{"http", "https"}, true, ""},
		{"a negative index is missing", "object.spec.containers[-1]", nil, false, ""},
		{"a missing key is a missing value", "object.spec.missing.deeper", nil, false, ""},
		{"an index out of range is a missing value", "object.spec.containers[9].name", nil, false, ""},
		{"null is a missing value", "object.spec.nothing", nil, false, ""},
		{"an empty optional is a missing value", "object.?spec.missing", nil, false, ""},
		{"a runtime error is an error", "int(object.metadata.name)", nil, false, "evaluate CEL"},
		{"a map with a non-string key is an error", "{1: 2}", nil, false, "map key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := compileCEL(tc.expr, TypeAny, Options{})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			got, found, err := c.eval(&objectActivation{object: obj})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("eval: %v", err)
			}
			if found != tc.found {
				t.Fatalf("found = %v, want %v", found, tc.found)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCELCompileErrors(t *testing.T) {
	tests := []struct {
		name  string
		expr  string
		typ   Type
		limit uint64
		want  string
	}{
		{"a syntax error has a location", "object.spec.(", TypeAny, 0, "invalid CEL: 1:13:"},
		{"an undeclared variable", "self.spec", TypeAny, 0, "undeclared reference to 'self'"},
		{"a result that can never be the declared type", `"x" + "y"`, TypeInt, 0, "CEL expression yields string, want int"},
		{"a bool declared as a map", "true", TypeMap, 0, "yields bool"},
		{"nested comprehensions over the object", "object.a.all(x, object.b.all(y, object.c.all(z, x == y && y == z)))", TypeAny, 0, "estimated worst-case CEL cost"},
		{"a comprehension under a small limit", "object.items.all(x, x > 0)", TypeAny, 100, "exceeds the limit 100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := compileCEL(tc.expr, tc.typ, Options{CELCostLimit: tc.limit})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestCELCompatibleDeclaredTypesCompile(t *testing.T) {
	for expr, typ := range map[string]Type{
		"1 + 1": TypeFloat, "2.0": TypeInt, "object.spec": TypeInt, `"a"`: TypeList, "{'a': 1}": TypeMap,
		"object.?spec.x": TypeString, "null": TypeBool,
	} {
		if _, _, err := compileCEL(expr, typ, Options{}); err != nil {
			t.Errorf("compile %q as %s: %v", expr, typ, err)
		}
	}
}

func intList(n int) []any {
	l := make([]any, n)
	for i := range l {
		l[i] = int64(i)
	}
	return l
}

func TestCELRuntimeCostLimitStopsLongEvaluations(t *testing.T) {
	c, _, err := compileCEL("object.items.all(x, x >= 0)", TypeAny, Options{CELCostLimit: 3000})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if _, _, err := c.eval(&objectActivation{object: map[string]any{"items": intList(100)}}); err != nil {
		t.Fatalf("small list: %v", err)
	}
	_, _, err = c.eval(&objectActivation{object: map[string]any{"items": intList(5000)}})
	if err == nil || !strings.Contains(err.Error(), "cost limit") {
		t.Fatalf("error = %v, want the cost limit exceeded", err)
	}
}

func TestCELTimeoutStopsEvaluationsTheCostLimitWouldLetRunLong(t *testing.T) {
	// 200,000 iterations cost ~600,000, under the default limit, but cel-go's cost
	// tracking makes them take minutes: the timeout stops them.
	c, _, err := compileCEL("object.items.all(x, x >= 0)", TypeAny, Options{CELTimeout: time.Millisecond})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	_, _, err = c.eval(&objectActivation{object: map[string]any{"items": intList(200_000)}})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("error = %v, want an interruption", err)
	}
}

func TestCELWithBoundedCostSkipsRuntimeTracking(t *testing.T) {
	env, err := celEnv()
	if err != nil {
		t.Fatal(err)
	}
	for expr, tracked := range map[string]bool{
		"size(object.spec.template.spec.containers)": false,
		"object.metadata.name + '-x'":                true, // string concatenation grows with the input
		"object.spec.containers.map(c, c.image)":     true,
	} {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatal(iss.Err())
		}
		opts, err := costOptions(env, ast, DefaultCELCostLimit)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(opts) > 0; got != tracked {
			t.Errorf("%s: runtime cost tracking = %v, want %v", expr, got, tracked)
		}
	}
}

func TestCELFields(t *testing.T) {
	tests := []struct {
		expr string
		want [][]string
	}{
		{"size(object.spec.template.spec.containers)", [][]string{{"spec", "template", "spec", "containers"}}},
		{`object.metadata.labels["app"] + object.metadata.name`, [][]string{{"metadata", "labels", "app"}, {"metadata", "name"}}},
		{"has(object.status.ready) && object.?spec.replicas.orValue(0) > 0", [][]string{{"spec", "replicas"}, {"status", "ready"}}},
		{"object.spec.containers.map(c, c.image)", [][]string{{"spec", "containers"}}},
		{"object.spec.containers[0].image", [][]string{{"spec", "containers"}}},
		{"size(object)", [][]string{{}}},
		{"[object.a, object][0].b", [][]string{{}}},
		{"1 + 2", nil},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			_, ast, err := compileCEL(tc.expr, TypeAny, Options{})
			if err != nil {
				t.Fatal(err)
			}
			fs := &FieldSet{}
			celFields(ast.NativeRep().Expr(), fs)
			if diff := cmp.Diff(tc.want, fs.Paths()); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestATimeoutIsAnErrorEvenOnAnOptionalAttribute(t *testing.T) {
	spec := attrs(Attribute{Name: "all", Path: "cel:object.items.all(x, x >= 0)", Optional: true},
		Attribute{Name: "bad", Path: "cel:int(object.kind)", Optional: true})
	e, errs := Compile(spec, Options{CELTimeout: time.Millisecond})
	if len(errs) > 0 {
		t.Fatalf("Compile: %v", errs.ToAggregate())
	}
	obj := map[string]any{"kind": "Deployment", "items": intList(200_000)}
	_, err := e.Extract(obj)
	if !errors.Is(err, ErrCELTimeout) {
		t.Fatalf("error = %v, want ErrCELTimeout: a row without the attribute would be published", err)
	}
	obj["items"] = intList(3)
	got, err := e.Extract(obj)
	if err != nil || got["all"] != true {
		t.Fatalf("in time: %v, %v; want all=true and the failing optional attribute omitted", got, err)
	}
	if _, ok := got["bad"]; ok {
		t.Errorf("an optional attribute that fails for the object is present: %v", got)
	}
}
