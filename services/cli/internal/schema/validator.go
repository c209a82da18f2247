package schema

import (
	"context"
	"fmt"
	"io/fs"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/api/crds"
)

// Validator checks objects of every kollect.dev kind.
type Validator struct {
	kinds map[schema.GroupVersionKind]*kindSchema
}

type kindSchema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

// New compiles the schemas of the embedded CRDs.
func New() (*Validator, error) {
	v := &Validator{kinds: map[schema.GroupVersionKind]*kindSchema{}}
	err := fs.WalkDir(crds.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := crds.FS.ReadFile(p)
		if err != nil {
			return err
		}
		return v.add(p, b)
	})
	return v, err
}

func (v *Validator) add(name string, b []byte) error {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(b, &crd); err != nil {
		return fmt.Errorf("decode CRD %s: %w", name, err)
	}
	for _, ver := range crd.Spec.Versions {
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(ver.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return fmt.Errorf("convert schema of %s: %w", name, err)
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return fmt.Errorf("structural schema of %s: %w", name, err)
		}
		sv, _, err := apiservervalidation.NewSchemaValidator(&internal)
		if err != nil {
			return fmt.Errorf("schema validator of %s: %w", name, err)
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: ver.Name, Kind: crd.Spec.Names.Kind}
		v.kinds[gvk] = &kindSchema{structural: s, validator: sv, cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}
	}
	return nil
}

// Known reports whether gvk is a kind the CRDs define.
func (v *Validator) Known(gvk schema.GroupVersionKind) bool { return v.kinds[gvk] != nil }

// Validate defaults obj in place, as the API server would, and returns every
// schema error: unknown fields, OpenAPI violations and CEL rules, with field
// paths as the API server writes them.
func (v *Validator) Validate(ctx context.Context, obj *unstructured.Unstructured) field.ErrorList {
	k := v.kinds[obj.GroupVersionKind()]
	if k == nil {
		return field.ErrorList{field.NotSupported[string](field.NewPath("kind"), obj.GetKind(), nil)}
	}
	var errs field.ErrorList
	pruned := structuralpruning.PruneWithOptions(obj.Object, k.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	for _, p := range pruned {
		errs = append(errs, field.Invalid(field.NewPath(p), nil, "unknown field"))
	}
	structuraldefaulting.Default(obj.Object, k.structural)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj.Object, k.validator)...)
	celErrs, _ := k.cel.Validate(ctx, nil, k.structural, obj.Object, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}
