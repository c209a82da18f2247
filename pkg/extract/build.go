package extract

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

const celPrefix = "cel:"

// Compile checks spec and compiles it into an Extractor. Every problem is reported, each
// naming its field (spec.attributes[2].path, spec.export.prune.jsonPointers[0], ...), so
// admission, `kollect validate` and the collector give the same messages. The Extractor is nil
// whenever the list is not empty. A field.ErrorTypeForbidden error, and only such an error,
// means the spec reads or exports Secret data without its opt-in (Spec.AllowSecretExtraction,
// Spec.AllowFullResourceExport): callers map the error type, never the message.
func Compile(spec Spec, opts Options) (*Extractor, field.ErrorList) {
	specPath := field.NewPath("spec")
	rules := opts.Rules()
	if spec.Export != nil && spec.Export.Prune != nil {
		rules = rules.With(spec.Export.Prune.ScrubKeys...)
	}
	e := &Extractor{rules: rules, fields: &FieldSet{}}
	viewed, viewing := &FieldSet{}, false // what paths, CEL and the embedded copy read
	errs := validateGVK(spec, specPath.Child("targetGVK"))
	seen := map[string]bool{}
	for i, a := range spec.Attributes {
		p := specPath.Child("attributes").Index(i)
		switch {
		case a.Name == "":
			errs = append(errs, field.Required(p.Child("name"), "an attribute needs a name"))
		case seen[a.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), a.Name))
		}
		seen[a.Name] = true
		ca, fs, aerrs := compileAttribute(a, &spec, opts, p)
		errs = append(errs, aerrs...)
		if len(aerrs) == 0 {
			ca.redactName = rules.SensitiveKey(a.Name)
			e.stateful = e.stateful || ca.cel != nil || ca.helm != ""
			e.attrs = append(e.attrs, ca)
			e.fields.Union(fs)
			switch {
			case ca.viewFields != nil:
				viewed.merge(ca.viewFields)
				viewing = true
			case ca.helm == "":
				viewed.merge(fs)
				viewing = true
			}
		}
	}
	if spec.Export != nil {
		var rerrs field.ErrorList
		e.export, rerrs = compileExport(spec, seen, specPath.Child("export"))
		errs = append(errs, rerrs...)
		if e.export != nil {
			e.fields.Union(exportFields(e.export.include))
			viewed.merge(exportFields(e.export.include))
			viewing = true
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if viewing {
		e.view = newViewer(rules, viewed)
		e.view.secret = isSecret(&spec) && !spec.AllowSecretExtraction && (e.export == nil || !e.export.keepSecretData)
	}
	return e, nil
}

func validateGVK(spec Spec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.GVK.Version == "" {
		errs = append(errs, field.Required(p.Child("version"), ""))
	}
	if spec.GVK.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	}
	return errs
}

func isSecret(spec *Spec) bool {
	return spec.GVK.Group == "" && spec.GVK.Version == "v1" && spec.GVK.Kind == "Secret"
}

// compileAttribute compiles one attribute and returns the paths it reads.
func compileAttribute(a Attribute, spec *Spec, opts Options, p *field.Path) (compiledAttr, *FieldSet, field.ErrorList) {
	ca := compiledAttr{name: a.Name, typ: a.Type, optional: a.Optional}
	if ca.typ == "" {
		ca.typ = TypeAny
	}
	if !a.Type.valid() {
		return ca, nil, field.ErrorList{field.NotSupported(p.Child("type"), a.Type, Types)}
	}
	pp := p.Child("path")
	fs := &FieldSet{}
	var err error
	switch {
	case a.Path == "":
		return ca, nil, field.ErrorList{field.Required(pp, "")}
	case strings.HasPrefix(a.Path, celPrefix):
		err = compileCELAttribute(&ca, a.Path, opts, fs)
	case strings.HasPrefix(a.Path, "helm:"):
		err = compileHelmAttribute(&ca, a.Path, spec, fs)
	case strings.HasPrefix(a.Path, "$") || strings.HasPrefix(a.Path, "{"):
		err = compileJSONPathAttribute(&ca, a.Path, fs)
	default:
		err = fmt.Errorf(`path must start with "$" or "{" (JSONPath), "cel:" (CEL) or "helm:release." (Helm)`)
	}
	if err != nil {
		return ca, nil, field.ErrorList{field.Invalid(pp, a.Path, err.Error())}
	}
	if isSecret(spec) && !spec.AllowSecretExtraction && readsSecretData(a.Path, fs) {
		return ca, nil, field.ErrorList{field.Forbidden(pp, fmt.Sprintf(
			`reads Secret data (data, stringData or metadata.annotations); the Profile needs the annotation %s: "true"`, annotationAllowSecretExtraction))}
	}
	return ca, fs, nil
}

// readsSecretData: a path reading data, stringData or metadata.annotations (which can repeat
// the data: last-applied) or the whole object, and the Helm release config, which holds the
// chart's user-supplied values.
func readsSecretData(path string, fs *FieldSet) bool {
	if path == helmPrefix+"config" {
		return true
	}
	if strings.HasPrefix(path, "helm:") {
		return false
	}
	return fs.Has("data") || fs.Has("stringData") || fs.covers("metadata", "annotations")
}

func compileCELAttribute(ca *compiledAttr, path string, opts Options, fs *FieldSet) error {
	expr, ast, err := compileCELAt(strings.TrimPrefix(path, celPrefix), len(celPrefix), ca.typ, opts)
	if err != nil {
		return err
	}
	ca.cel = expr
	celFields(ast.NativeRep().Expr(), fs)
	ca.viewFields = &FieldSet{}
	celViewFields(ast.NativeRep().Expr(), ca.viewFields)
	return nil
}

func compileHelmAttribute(ca *compiledAttr, path string, spec *Spec, fs *FieldSet) error {
	if !strings.HasPrefix(path, helmPrefix) {
		return fmt.Errorf(`a Helm path is "helm:release.<field>"`)
	}
	if !isSecret(spec) {
		return fmt.Errorf("helm:release paths need targetGVK to be the core v1 Secret")
	}
	f, err := parseHelmPath(path)
	if err != nil {
		return err
	}
	ca.helm = f
	fs.Insert("type")
	fs.Insert("data", "release")
	return nil
}

func compileJSONPathAttribute(ca *compiledAttr, path string, fs *FieldSet) error {
	jp, err := parseJSONPath(path)
	if err == nil {
		ca.native, ca.multi = jp, jp.multi
		jp.fields(fs)
		return nil
	}
	if !isUnsupported(err) {
		return err
	}
	fb, err := compileFallback(path)
	if err != nil {
		return err
	}
	ca.fallback, ca.multi = fb, fb.multi
	fb.fields(fs)
	return nil
}
