package extract

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestExtractEveryLanguageAndType(t *testing.T) {
	tests := []struct {
		name string
		attr Attribute
		want any
	}{
		{"JSONPath string", Attribute{Path: "$.metadata.name", Type: TypeString}, "checkout"},
		{"kubectl-style int", Attribute{Path: "{.spec.replicas}", Type: TypeInt}, int64(3)},
		{"JSONPath float from an int", Attribute{Path: "$.spec.replicas", Type: TypeFloat}, float64(3)},
		{"JSONPath bool", Attribute{Path: "$.spec.template.spec.securityContext.runAsNonRoot", Type: TypeBool}, true},
		{"JSONPath map", Attribute{Path: "$.metadata.labels", Type: TypeMap}, map[string]any{
			"app.kubernetes.io/name": "checkout", "app.kubernetes.io/part-of": "shop", "app.kubernetes.io/version": "2.14.1", "team": "payments"}},
		{"JSONPath list of one element", Attribute{Path: "$.spec.template.spec.containers[0].image", Type: TypeList}, []any{"registry.example.com/shop/checkout:2.14.1"}},
		{"JSONPath wildcard typed per element", Attribute{Path: "$.spec.template.spec.containers[*].name", Type: TypeString}, []any{"app", "envoy", "log-shipper"}},
		{"JSONPath filter yields a list even of one element", Attribute{Path: `$.status.conditions[?(@.type=="Available")].status`}, []any{"True"}},
		{"JSONPath fallback slice", Attribute{Path: "$.spec.template.spec.containers[1:].name"}, []any{"envoy", "log-shipper"}},
		{"JSONPath any", Attribute{Path: "$.spec.strategy.type"}, "RollingUpdate"},
		{"CEL int", Attribute{Path: "cel:size(object.spec.template.spec.containers)", Type: TypeInt}, int64(3)},
		{"CEL string", Attribute{Path: "cel:object.metadata.namespace + '/' + object.metadata.name", Type: TypeString}, "shop/checkout"},
		{"CEL float", Attribute{Path: "cel:double(object.status.readyReplicas) / double(object.spec.replicas)", Type: TypeFloat}, 1.0},
		{"CEL bool", Attribute{Path: "cel:object.status.readyReplicas == object.spec.replicas", Type: TypeBool}, true},
		{"CEL list", Attribute{Path: "cel:object.spec.template.spec.containers.map(c, c.name)", Type: TypeList}, []any{"app", "envoy", "log-shipper"}},
		{"CEL scalar as a list", Attribute{Path: "cel:object.metadata.name", Type: TypeList}, []any{"checkout"}},
		{"CEL map", Attribute{Path: "cel:object.spec.selector.matchLabels", Type: TypeMap}, map[string]any{"app.kubernetes.io/name": "checkout"}},
	}
	obj := loadObject(t, "deployment.json")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.attr.Name = "v"
			got, err := mustCompile(t, attrs(tc.attr)).Extract(obj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]any{"v": tc.want}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractMissingValuesAndErrors(t *testing.T) {
	tests := []struct {
		name     string
		attr     Attribute
		want     map[string]any
		wantErr  string
		errIsTyp bool
	}{
		{"a required missing value is null", Attribute{Path: "$.spec.missing"}, map[string]any{"v": nil}, "", false},
		{"an optional missing value is omitted", Attribute{Path: "$.spec.missing", Optional: true}, map[string]any{}, "", false},
		{"a required missing CEL key is null", Attribute{Path: "cel:object.spec.missing"}, map[string]any{"v": nil}, "", false},
		{"an optional missing CEL key is omitted", Attribute{Path: "cel:object.spec.missing", Optional: true}, map[string]any{}, "", false},
		{"a required wildcard without matches is an empty list", Attribute{Path: "$.spec.missing[*].x"}, map[string]any{"v": []any{}}, "", false},
		{"a required type error fails the row", Attribute{Path: "$.metadata.name", Type: TypeInt}, nil, `attribute "v": value is string, want int`, true},
		{"an optional type error omits the key", Attribute{Path: "$.metadata.name", Type: TypeInt, Optional: true}, map[string]any{}, "", false},
		{"a required CEL error fails the row", Attribute{Path: "cel:int(object.metadata.name)"}, nil, `attribute "v": evaluate CEL`, false},
		{"an optional CEL error omits the key", Attribute{Path: "cel:int(object.metadata.name)", Optional: true}, map[string]any{}, "", false},
		{"a required element of the wrong type fails the row", Attribute{Path: "$.spec.template.spec.containers[*].ports[*].containerPort", Type: TypeString}, nil, "element 0: value is int, want string", true},
	}
	obj := loadObject(t, "deployment.json")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.attr.Name = "v"
			got, err := mustCompile(t, attrs(tc.attr)).Extract(obj)
			if tc.wantErr != "" {
				var ae *AttributeError
				if !errors.As(err, &ae) || ae.Attribute != "v" || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want an *AttributeError containing %q", err, tc.wantErr)
				}
				var te *TypeError
				if errors.As(err, &te) != tc.errIsTyp {
					t.Errorf("error %v: is *TypeError = %v, want %v", err, !tc.errIsTyp, tc.errIsTyp)
				}
				if got != nil {
					t.Errorf("attributes = %v alongside an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractRedactsAttributes(t *testing.T) {
	spec := attrs(
		Attribute{Name: "dbPassword", Path: "$.metadata.name"},
		Attribute{Name: "env", Path: "$.spec.template.spec.containers[0].env"},
		Attribute{Name: "envoyEnv", Path: `cel:object.spec.template.spec.containers.filter(c, c.name == "envoy")[0].env`},
		Attribute{Name: "owner", Path: "$.metadata.annotations['example.com/owner']"},
	)
	spec.Export = &Export{Prune: &ExportPrune{ScrubKeys: []string{"owner"}}}
	obj := loadObject(t, "deployment.json")
	before := runtime.DeepCopyJSON(obj)
	got, err := mustCompile(t, spec).Extract(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"dbPassword": sensitive(),
		"env": []any{
			map[string]any{"name": "LOG_LEVEL", "value": "info"},
			map[string]any{"name": "DB_HOST", "value": "postgres.shop.svc"},
			map[string]any{"name": "DB_PASSWORD", "value": sensitive()},
			map[string]any{"name": "STRIPE_API_KEY", "valueFrom": sensitive()},
			map[string]any{"name": "POD_NAME", "valueFrom": sensitive()},
		},
		"envoyEnv": []any{
			map[string]any{"name": "ENVOY_UID", "value": "0"},
			map[string]any{"name": "auth", "value": sensitive()},
		},
		"owner": sensitive(),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, obj); diff != "" {
		t.Errorf("Extract modified its input (-before +after):\n%s", diff)
	}
}

func TestExtractSecretDataNeedsTheAnnotation(t *testing.T) {
	secret := decodeObject(t, `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"}, "type": "Opaque",
		"data": {"host": "ZGIuZXhhbXBsZQ==", "password": "aHVudGVyMg=="}}`)
	tests := []struct {
		name  string
		path  string
		reads bool
		want  any
	}{
		{"a data key", "$.data.host", true, "ZGIuZXhhbXBsZQ=="},
		{"the data map, with key redaction still on", "$.data", true, map[string]any{"host": "ZGIuZXhhbXBsZQ==", "password": sensitive()}},
		{"stringData", "$.stringData.x", true, nil},
		{"recursive descent from the root", "$..host", true, []any{"ZGIuZXhhbXBsZQ=="}},
		{"the whole object", "$", true, nil},
		{"CEL selecting data", "cel:object.data.host", true, "ZGIuZXhhbXBsZQ=="},
		{"CEL indexing data", `cel:object["data"]["host"]`, true, "ZGIuZXhhbXBsZQ=="},
		{"CEL using the whole object", "cel:size(object)", true, int64(5)},
		{"metadata", "$.metadata.name", false, "db"},
		{"the type in CEL", "cel:object.type", false, "Opaque"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := Spec{GVK: secretGVK, Attributes: []Attribute{{Name: "v", Path: tc.path}}}
			_, errs := Compile(spec, Options{})
			if tc.reads {
				if len(errs) != 1 || errs[0].Field != "spec.attributes[0].path" || !strings.Contains(errs[0].Detail, annotationAllowSecretExtraction) {
					t.Fatalf("without the annotation: errors = %v, want one naming spec.attributes[0].path and the annotation", errs)
				}
			} else if len(errs) > 0 {
				t.Fatalf("without the annotation: %v", errs)
			}
			spec.AllowSecretExtraction = true
			got, err := mustCompile(t, spec).Extract(secret)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, got["v"]); diff != "" {
					t.Errorf("with the annotation (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestExtractIsSafeForConcurrentUse(t *testing.T) {
	spec := benchSpec()
	spec.Attributes = append(spec.Attributes,
		Attribute{Name: "slice", Path: "$.spec.template.spec.containers[1:].name"},
		Attribute{Name: "env", Path: "cel:object.spec.template.spec.containers.map(c, c.?env.orValue([]))"},
	)
	spec.Export = &Export{Mode: ExportResource, Prune: &ExportPrune{JSONPaths: []string{"$..livenessProbe"}}}
	e := mustCompile(t, spec)
	obj := loadObject(t, "deployment.json")
	want, err := e.Extract(obj)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan map[string]any)
	for range 8 {
		go func() {
			var got map[string]any
			for range 200 {
				got, _ = e.Extract(obj)
			}
			done <- got
		}()
	}
	for range 8 {
		if diff := cmp.Diff(want, <-done); diff != "" {
			t.Errorf("concurrent result (-want +got):\n%s", diff)
		}
	}
}
