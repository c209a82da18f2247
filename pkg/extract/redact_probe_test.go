package extract

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

// canary is in every sensitive value of the probe objects; no output may hold it.
const canary = "CANARY"

// probeDeployment is the review's probe (RELIABILITY-SECURITY.md section 4): env values by
// sensitive names, a URL with a password, flags with values, a last-applied annotation that
// repeats them, and a reference block.
const probeDeployment = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "app", "namespace": "team-b", "resourceVersion": "7",
    "annotations": {
      "kubectl.kubernetes.io/last-applied-configuration": "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"env\":[{\"name\":\"DB_PASSWORD\",\"value\":\"CANARY-LAA\"}]}]}}}}",
      "example.com/owner": "team-b"}},
  "spec": {"replicas": 2, "template": {"spec": {"containers": [{
    "name": "app", "image": "app:1",
    "args": ["--password=CANARY-ARG-1", "--token", "CANARY-ARG-2", "-v", "--port=80"],
    "command": ["sh", "-c", "mysql --password CANARY-CMD-1 && curl -H 'Authorization: Bearer CANARY-CMD-2' x"],
    "env": [
      {"name": "DB_PASSWORD", "value": "CANARY-ENV-1"},
      {"name": "DATABASE_URL", "value": "postgres://u:CANARY-URL-1@db:5432/app"},
      {"name": "AWS_SECRET_ACCESS_KEY", "value": "CANARY-AWS-1"},
      {"name": "AWS_ACCESS_KEY_ID", "value": "AKIAIOSFODNN7EXAMPLE"},
      {"name": "SENTRY_DSN", "value": "https://CANARY-DSN-1@o1.ingest.sentry.io/1"},
      {"name": "DB_URL", "valueFrom": {"secretKeyRef": {"name": "db", "key": "CANARY-REF-1"}}},
      {"name": "LOG_LEVEL", "value": "info"}
    ]}]}}}
}`

const containerPath = "object.spec.template.spec.containers[0]"

// missing stands for an attribute that is absent: not found, or an evaluation error.
var missing = map[string]any{"missing": true}

func TestRedactionCannotBeBypassedBySelection(t *testing.T) {
	marker := sensitive()
	tests := []struct {
		name string
		path string
		want any // nil: only the canary check; missing: absent
	}{
		{"the env list keeps names and loses every sensitive value", "$.spec.template.spec.containers[*].env", nil},
		{"a filter on the name selects the marker", `$..env[?(@.name=="DB_PASSWORD")].value`, []any{marker}},
		{"an index selects the marker", "$.spec.template.spec.containers[0].env[0].value", marker},
		{"a URL with a password is a sensitive value", "$.spec.template.spec.containers[0].env[1].value", Redacted(ReasonSensitiveValue)},
		{"an AWS secret by name", "$.spec.template.spec.containers[0].env[2].value", marker},
		{"a filter on the value never matches a guess", `$.spec.template.spec.containers[0].env[?(@.value=="CANARY-ENV-1")].name`, []any{}},
		{"a client-go filter on the value never matches a guess", `{.spec.template.spec.containers[0].env[?(@.value=="CANARY-ENV-1")].name}`, []any{}},
		{"CEL filter then index yields the marker", "cel:" + containerPath + `.env.filter(e, e.name == "DB_PASSWORD")[0].value`, marker},
		{"CEL base64 of a redacted value yields the marker", "cel:base64.encode(bytes(" + containerPath + ".env[0].value))", marker},
		{"CEL size of a redacted value yields the marker", "cel:size(" + containerPath + ".env[0].value)", marker},
		{"CEL size of a list is its length", "cel:size(" + containerPath + ".args)", int64(5)},
		{"CEL size of a map counts its keys", "cel:object.metadata.annotations.size()", int64(2)},
		{"CEL size of a detected value yields the marker", "cel:size(object.spec.template.spec.containers[0].env[1].value)", Redacted(ReasonSensitiveValue)},
		{"CEL size of last-applied by its path yields the marker", `cel:size(object.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"])`, marker},
		{"CEL map over the values yields the marker", "cel:" + containerPath + ".env.map(e, e.value)", marker},
		{"CEL string functions yield the marker", "cel:" + containerPath + `.env[0].value.startsWith("CANARY")`, marker},
		{"CEL below a reference block finds nothing", "cel:" + containerPath + ".env[5].valueFrom.secretKeyRef.key", missing},
		{"CEL reading a reference block yields the marker", "cel:" + containerPath + ".env[5].valueFrom", marker},
		{"CEL join of args holding markers fails", "cel:" + containerPath + `.args.join(" ")`, missing},
		{"args keep the flags and lose their values", "$.spec.template.spec.containers[0].args",
			[]any{marker, "--token", marker, "-v", "--port=80"}},
		{"a shell command line with a sensitive flag is redacted", "$.spec.template.spec.containers[0].command[2]", Redacted(ReasonSensitiveValue)},
		{"the annotations lose last-applied", "$.metadata.annotations",
			map[string]any{"kubectl.kubernetes.io/last-applied-configuration": marker, "example.com/owner": "team-b"}},
		{"CEL reading last-applied yields the marker", `cel:object.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]`, marker},
		{"CEL over the whole object", "cel:object", nil},
		{"recursive descent over the whole object", "$..value", nil},
	}
	obj := decodeObject(t, probeDeployment)
	before := runtime.DeepCopyJSON(obj)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, typ := range []Type{TypeAny, TypeString} {
				e, errs := Compile(attrs(Attribute{Name: "v", Path: tc.path, Type: typ, Optional: true}), Options{})
				if len(errs) > 0 && typ != TypeAny {
					continue // CEL checks its result type at compile time
				}
				if len(errs) > 0 {
					t.Fatalf("compile: %v", errs.ToAggregate())
				}
				got, err := e.Extract(obj)
				assertNoCanary(t, got, err)
				if typ != TypeAny || tc.want == nil {
					continue
				}
				v, found := got["v"]
				if !found {
					v = missing
				}
				if diff := cmp.Diff(tc.want, v); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tc.path, diff)
				}
			}
		})
	}
	if diff := cmp.Diff(before, obj); diff != "" {
		t.Fatalf("the object was modified (-before +after):\n%s", diff)
	}
}

func TestEmbeddedResourcesNeverHoldRedactedValues(t *testing.T) {
	no := false
	secret := `{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
	  "metadata": {"name": "s", "annotations": {"example.com/copy": "CANARY-SECRET-ANN",
	    "kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{\"password\":\"CANARY-SECRET-LAA\"}}"}},
	  "data": {"password": "CANARY-SECRET-DATA"}}`
	tests := []struct {
		name   string
		spec   Spec
		obj    string
		marker map[string]any // the marker at metadata.annotations, when the whole map is withheld
	}{
		{"a Deployment with prune.defaults false keeps last-applied only as a marker",
			Spec{GVK: deploymentGVK, Export: &Export{Mode: ExportResource, Include: IncludeAll, Prune: &ExportPrune{Defaults: &no}}},
			probeDeployment, nil},
		{"a Deployment, MetadataOnly",
			Spec{GVK: deploymentGVK, Export: &Export{Mode: ExportResource, Include: IncludeMetadataOnly, Prune: &ExportPrune{Defaults: &no}}},
			probeDeployment, nil},
		{"a Secret, MetadataOnly, with only the full-export opt-in: annotations are Secret data",
			Spec{GVK: secretGVK, AllowFullResourceExport: true, Export: &Export{Mode: ExportResource, Include: IncludeMetadataOnly, Prune: &ExportPrune{Defaults: &no}}},
			secret, Redacted(ReasonSecretData)},
		{"a Secret, MetadataOnly, with both attribute and export opt-ins but not include All",
			Spec{GVK: secretGVK, AllowSecretExtraction: true, AllowFullResourceExport: true, Export: &Export{Mode: ExportResource, Include: IncludeMetadataOnly, Prune: &ExportPrune{Defaults: &no}}},
			secret, Redacted(ReasonSecretData)},
		{"a Secret, SpecAndStatus, with both attribute and export opt-ins but not include All",
			Spec{GVK: secretGVK, AllowSecretExtraction: true, AllowFullResourceExport: true, Export: &Export{Mode: ExportResource, Prune: &ExportPrune{Defaults: &no}}},
			secret, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := embedded(t, tc.spec, decodeObject(t, tc.obj))
			assertNoCanary(t, got, nil)
			if tc.marker != nil {
				if diff := cmp.Diff(tc.marker, got["metadata"].(map[string]any)["annotations"]); diff != "" {
					t.Errorf("annotations (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestSecretAnnotationsNeedTheSecretOptIn(t *testing.T) {
	for _, path := range []string{"$.metadata.annotations", "$.metadata", `cel:object.metadata.annotations["example.com/copy"]`} {
		spec := Spec{GVK: secretGVK, Attributes: []Attribute{{Name: "a", Path: path}}}
		_, errs := Compile(spec, Options{})
		if len(errs) != 1 || errs[0].Field != "spec.attributes[0].path" || !strings.Contains(errs[0].Detail, "metadata.annotations") {
			t.Errorf("%s on a Secret without the opt-in: %v, want one error on spec.attributes[0].path", path, errs)
		}
		spec.AllowSecretExtraction = true
		if _, errs := Compile(spec, Options{}); len(errs) > 0 {
			t.Errorf("%s with the opt-in: %v", path, errs)
		}
	}
	if _, errs := Compile(Spec{GVK: secretGVK, Attributes: []Attribute{{Name: "l", Path: "$.metadata.labels"}}}, Options{}); len(errs) > 0 {
		t.Errorf("labels of a Secret need no opt-in: %v", errs)
	}
}

func TestPredicatesNeverDependOnRedactedValues(t *testing.T) {
	obj := decodeObject(t, probeDeployment)
	for _, src := range []string{
		containerPath + `.env[0].value.startsWith("CANARY")`,
		containerPath + `.env.exists(e, e.value == "CANARY-ENV-1")`,
		`"CANARY-ARG-2" in ` + containerPath + ".args",
		`object.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"].contains("CANARY")`,
	} {
		p, err := CompilePredicate(src, 0)
		if err != nil {
			t.Fatalf("compile %s: %v", src, err)
		}
		if ok, err := p.Match(obj); ok {
			t.Errorf("%s matched: the predicate saw a redacted value (err %v)", src, err)
		}
	}
	secret := decodeObject(t, `{"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "data": {"k": "CANARY"}}`)
	p, err := CompilePredicate(`object.data.k == "CANARY" || object.type == "Opaque"`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := p.Match(secret); !ok || err != nil {
		t.Errorf("a predicate on a Secret's type: %v, %v; want true", ok, err)
	}
	p, _ = CompilePredicate(`object.data.k == "CANARY"`, 0)
	if ok, _ := p.Match(secret); ok {
		t.Error("a predicate read Secret data")
	}
}

// assertNoCanary fails when the canary appears in v (as JSON) or err.
func assertNoCanary(t *testing.T, v any, err error) {
	t.Helper()
	b, jerr := json.Marshal(v)
	if jerr != nil {
		t.Fatalf("marshal: %v", jerr)
	}
	if strings.Contains(string(b), canary) {
		t.Errorf("a canary value survived: %s", b)
	}
	if err != nil && strings.Contains(err.Error(), canary) {
		t.Errorf("a canary value is quoted in the error: %v", err)
	}
}
