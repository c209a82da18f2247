package extract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/api/v1alpha1"
)

const profileYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata:
  name: deployments
  namespace: shop
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: image, path: "$.spec.template.spec.containers[0].image"}
  - {name: images, path: "$.spec.template.spec.containers[*].image", type: list}
  - {name: containerCount, path: "cel:size(object.spec.template.spec.containers)"}
  - {name: replicas, path: "{.spec.replicas}", type: int}
  - {name: paused, path: "$.spec.paused", type: bool, optional: true}
  export:
    mode: Resource
    as: manifest
    include: SpecOnly
    dedupeIdentity: false
    prune:
      defaults: false
      jsonPointers: [/spec/template/spec/volumes]
      jsonPaths: ["$..livenessProbe"]
      scrubKeys: [owner]
  metrics:
  - {name: kollect_deployment_replicas, path: replicas, labels: [image]}
`

func decodeProfile(t *testing.T, y string) *v1alpha1.KollectProfile {
	t.Helper()
	var p v1alpha1.KollectProfile
	if err := yaml.UnmarshalStrict([]byte(y), &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func TestSpecFromProfileMapsEveryField(t *testing.T) {
	no := false
	p := decodeProfile(t, profileYAML)
	p.Annotations = map[string]string{v1alpha1.AnnotationAllowSecretExtraction: "true", v1alpha1.AnnotationAllowFullResourceExport: "yes"}
	want := Spec{
		GVK: deploymentGVK,
		Attributes: []Attribute{
			{Name: "image", Path: "$.spec.template.spec.containers[0].image"},
			{Name: "images", Path: "$.spec.template.spec.containers[*].image", Type: TypeList},
			{Name: "containerCount", Path: "cel:size(object.spec.template.spec.containers)"},
			{Name: "replicas", Path: "{.spec.replicas}", Type: TypeInt},
			{Name: "paused", Path: "$.spec.paused", Type: TypeBool, Optional: true},
		},
		Export: &Export{Mode: ExportResource, As: "manifest", Include: IncludeSpecOnly, DedupeIdentity: &no, Prune: &ExportPrune{
			Defaults: &no, JSONPointers: []string{"/spec/template/spec/volumes"}, JSONPaths: []string{"$..livenessProbe"}, ScrubKeys: []string{"owner"},
		}},
		AllowSecretExtraction:   true,
		AllowFullResourceExport: false, // only "true" opts in
	}
	if diff := cmp.Diff(want, SpecFromProfile(p.Spec, p.Annotations)); diff != "" {
		t.Errorf("SpecFromProfile (-want +got):\n%s", diff)
	}
}

func TestCompileProfileExtracts(t *testing.T) {
	e, errs := CompileProfile(decodeProfile(t, profileYAML), Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got, err := e.Extract(loadObject(t, "deployment.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := got["manifest"].(map[string]any)
	got["manifest"] = keys(m)
	want := map[string]any{
		"image":          "registry.example.com/shop/checkout:2.14.1",
		"images":         []any{"registry.example.com/shop/checkout:2.14.1", "envoyproxy/envoy:v1.31.2", "fluent/fluent-bit:3.1.9"},
		"containerCount": int64(3),
		"replicas":       int64(3),
		"manifest":       []string{"apiVersion", "kind", "metadata", "spec"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if name := m["metadata"].(map[string]any)["name"]; name != "checkout" {
		t.Errorf("dedupeIdentity false: metadata.name = %v", name)
	}
}

func TestCompileProfileChecksMetrics(t *testing.T) {
	p := decodeProfile(t, profileYAML)
	p.Spec.Metrics = []v1alpha1.ProfileMetric{
		{Name: "a", Path: "nope"},
		{Name: "b", Path: "images", Labels: []string{"image", "ghost"}},
		{Name: "c", Path: "containerCount"},
	}
	_, errs := CompileProfile(p, Options{})
	want := []fieldErr{
		{field.ErrorTypeNotFound, "spec.metrics[0].path"},
		{field.ErrorTypeInvalid, "spec.metrics[1].path"},
		{field.ErrorTypeNotFound, "spec.metrics[1].labels[1]"},
	}
	if diff := cmp.Diff(want, summarise(errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestCompileProfileRefusesMetricLabelCollisions(t *testing.T) {
	tests := []struct {
		name    string
		metrics []v1alpha1.ProfileMetric
		want    []fieldErr
	}{
		{"target and attribute_target collide (H4)",
			[]v1alpha1.ProfileMetric{{Name: "size", Path: "replicas", Labels: []string{"target", "attribute_target"}}},
			[]fieldErr{{field.ErrorTypeInvalid, "spec.metrics[0].labels"}}},
		{"a reserved name and its renamed form collide",
			[]v1alpha1.ProfileMetric{{Name: "size", Path: "replicas", Labels: []string{"__x", "attribute___x"}}},
			[]fieldErr{{field.ErrorTypeInvalid, "spec.metrics[0].labels"}}},
		{"a repeated label collides with itself",
			[]v1alpha1.ProfileMetric{{Name: "size", Path: "replicas", Labels: []string{"image", "image"}}},
			[]fieldErr{{field.ErrorTypeInvalid, "spec.metrics[0].labels"}}},
		{"a repeated metric name and an invalid one",
			[]v1alpha1.ProfileMetric{{Name: "size", Path: "replicas"}, {Name: "size", Path: "replicas"}, {Name: "a-b", Path: "replicas"}},
			[]fieldErr{{field.ErrorTypeDuplicate, "spec.metrics[1].name"}, {field.ErrorTypeInvalid, "spec.metrics[2].name"}}},
		{"target alone is renamed, not refused",
			[]v1alpha1.ProfileMetric{{Name: "size", Path: "replicas", Labels: []string{"target", "image"}}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := decodeProfile(t, profileYAML)
			for _, n := range []string{"target", "attribute_target", "__x", "attribute___x"} {
				p.Spec.Attributes = append(p.Spec.Attributes, v1alpha1.Attribute{Name: n, Path: "$.metadata.name"})
			}
			p.Spec.Metrics = tc.metrics
			_, errs := CompileProfile(p, Options{})
			if diff := cmp.Diff(tc.want, summarise(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%v", diff, errs)
			}
		})
	}
}

func TestAnnotationNamesMatchTheAPI(t *testing.T) {
	if annotationAllowSecretExtraction != v1alpha1.AnnotationAllowSecretExtraction ||
		annotationAllowFullResourceExport != v1alpha1.AnnotationAllowFullResourceExport {
		t.Error("the engine quotes annotation names that differ from api/v1alpha1")
	}
}
