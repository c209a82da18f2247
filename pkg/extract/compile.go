package extract

import (
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

// validateMetrics: a gauge's path names an attribute that can hold a number, its labels name
// attributes.
func validateMetrics(spec v1alpha1.KollectProfileSpec, p *field.Path) field.ErrorList {
	types := map[string]v1alpha1.AttributeType{}
	for _, a := range spec.Attributes {
		types[a.Name] = a.Type
	}
	var errs field.ErrorList
	for i, m := range spec.Metrics {
		t, ok := types[m.Path]
		switch {
		case !ok:
			errs = append(errs, field.NotFound(p.Index(i).Child("path"), m.Path))
		case t != "" && t != v1alpha1.AttributeInt && t != v1alpha1.AttributeFloat && t != v1alpha1.AttributeBool && t != v1alpha1.AttributeAny:
			errs = append(errs, field.Invalid(p.Index(i).Child("path"), m.Path, "a gauge needs an attribute of type int, float, bool or any"))
		}
		for j, l := range m.Labels {
			if _, ok := types[l]; !ok {
				errs = append(errs, field.NotFound(p.Index(i).Child("labels").Index(j), l))
			}
		}
	}
	return errs
}
