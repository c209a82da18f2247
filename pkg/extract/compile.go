package extract

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"kollect.dev/kollect/api/v1alpha1"
)

// CompileProfile compiles a KollectProfile (its spec and opt-in annotations) into an
// Extractor; see Compile. It also checks that spec.metrics refer to attributes that can hold
// their values.
func CompileProfile(p *v1alpha1.KollectProfile, opts Options) (*Extractor, field.ErrorList) {
	e, errs := Compile(SpecFromProfile(p.Spec, p.Annotations), opts)
	errs = append(errs, validateMetrics(p.Spec, field.NewPath("spec", "metrics"))...)
	if len(errs) > 0 {
		return nil, errs
	}
	return e, nil
}

// SpecFromProfile maps a KollectProfileSpec and the Profile's annotations onto the engine's Spec.
func SpecFromProfile(spec v1alpha1.KollectProfileSpec, annotations map[string]string) Spec {
	s := Spec{
		GVK:                     schema.GroupVersionKind{Group: spec.TargetGVK.Group, Version: spec.TargetGVK.Version, Kind: spec.TargetGVK.Kind},
		AllowSecretExtraction:   annotations[v1alpha1.AnnotationAllowSecretExtraction] == "true",
		AllowFullResourceExport: annotations[v1alpha1.AnnotationAllowFullResourceExport] == "true",
	}
	for _, a := range spec.Attributes {
		s.Attributes = append(s.Attributes, Attribute{Name: a.Name, Path: a.Path, Type: Type(a.Type), Optional: a.Optional})
	}
	if x := spec.Export; x != nil {
		s.Export = &Export{
			Mode:           ExportMode(x.Mode),
			As:             x.As,
			Include:        Include(x.Include),
			DedupeIdentity: x.DedupeIdentity,
		}
		if p := x.Prune; p != nil {
			s.Export.Prune = &ExportPrune{Defaults: p.Defaults, JSONPointers: p.JSONPointers, JSONPaths: p.JSONPaths, ScrubKeys: p.ScrubKeys}
		}
	}
	return s
}

// MetricTargetLabel is the label every Profile gauge carries (the Target); an attribute
// label must never take its name.
const MetricTargetLabel = "target"

// MetricLabelName is the label name of attribute attr in a Profile gauge: the attribute's
// name, prefixed with "attribute_" when it would be the built-in target label or a name
// Prometheus reserves ("__...").
func MetricLabelName(attr string) string {
	if attr == MetricTargetLabel || strings.HasPrefix(attr, "__") {
		return "attribute_" + attr
	}
	return attr
}

var metricNamePattern = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// validateMetrics: a gauge's name is a unique Prometheus name, its path names an attribute
// that can hold a number, its labels name attributes whose label names do not collide with
// each other or with the built-in target label (the collector could not expose it).
func validateMetrics(spec v1alpha1.KollectProfileSpec, p *field.Path) field.ErrorList {
	types := map[string]v1alpha1.AttributeType{}
	for _, a := range spec.Attributes {
		types[a.Name] = a.Type
	}
	var errs field.ErrorList
	names := map[string]bool{}
	for i, m := range spec.Metrics {
		mp := p.Index(i)
		switch {
		case !metricNamePattern.MatchString(m.Name):
			errs = append(errs, field.Invalid(mp.Child("name"), m.Name, "must be a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)"))
		case names[m.Name]:
			errs = append(errs, field.Duplicate(mp.Child("name"), m.Name))
		}
		names[m.Name] = true
		t, ok := types[m.Path]
		switch {
		case !ok:
			errs = append(errs, field.NotFound(mp.Child("path"), m.Path))
		case t != "" && t != v1alpha1.AttributeInt && t != v1alpha1.AttributeFloat && t != v1alpha1.AttributeBool && t != v1alpha1.AttributeAny:
			errs = append(errs, field.Invalid(mp.Child("path"), m.Path, "a gauge needs an attribute of type int, float, bool or any"))
		}
		for j, l := range m.Labels {
			if _, ok := types[l]; !ok {
				errs = append(errs, field.NotFound(mp.Child("labels").Index(j), l))
			}
		}
		if msg := labelCollision(m.Labels); msg != "" {
			errs = append(errs, field.Invalid(mp.Child("labels"), m.Labels, msg))
		}
	}
	return errs
}

// labelCollision describes the first two labels (or a label and the built-in target label)
// that become the same metric label name, or returns "".
func labelCollision(labels []string) string {
	owner := map[string]string{MetricTargetLabel: ""}
	for _, l := range labels {
		n := MetricLabelName(l)
		prev, taken := owner[n]
		switch {
		case taken && prev == "":
			return fmt.Sprintf("label %q becomes the metric label %q, which is built in", l, n)
		case taken:
			return fmt.Sprintf("labels %q and %q both become the metric label %q", prev, l, n)
		}
		owner[n] = l
	}
	return ""
}
