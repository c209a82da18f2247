package extract

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	exportModes = []string{string(ExportAttributes), string(ExportResource)}
	includes    = []string{string(IncludeMetadataOnly), string(IncludeSpecOnly), string(IncludeStatusOnly), string(IncludeSpecAndStatus), string(IncludeAll)}
)

// compileExport checks spec.export and returns the embedded-copy builder, nil in Attributes
// mode. attrs holds the attribute names, which "as" must not collide with.
func compileExport(spec Spec, attrs map[string]bool, p *field.Path) (*resourceExport, field.ErrorList) {
	x := spec.Export
	var errs field.ErrorList
	mode := x.Mode
	if mode == "" {
		mode = ExportAttributes
	}
	if mode != ExportAttributes && mode != ExportResource {
		errs = append(errs, field.NotSupported(p.Child("mode"), x.Mode, exportModes))
	}
	r := &resourceExport{
		as:       x.As,
		include:  x.Include,
		dedupe:   boolOr(x.DedupeIdentity, true),
		defaults: true,
		secret:   isSecret(&spec),
	}
	if r.as == "" {
		r.as = DefaultExportAs
	}
	if r.include == "" {
		r.include = IncludeSpecAndStatus
	}
	if !r.include.spec() && !r.include.status() && r.include != IncludeMetadataOnly {
		errs = append(errs, field.NotSupported(p.Child("include"), x.Include, includes))
	}
	if mode == ExportResource && attrs[r.as] {
		errs = append(errs, field.Invalid(p.Child("as"), r.as, "must not equal the name of an attribute"))
	}
	if mode == ExportResource && r.secret && !spec.AllowFullResourceExport {
		errs = append(errs, field.Forbidden(p.Child("mode"), fmt.Sprintf(
			`exporting whole Secrets needs the Profile annotation %s: "true"`, annotationAllowFullResourceExport)))
	}
	r.keepSecretData = spec.AllowFullResourceExport && r.include == IncludeAll
	if x.Prune != nil {
		errs = append(errs, compilePrune(r, x.Prune, p.Child("prune"))...)
	}
	if len(errs) > 0 || mode != ExportResource {
		return nil, errs
	}
	return r, nil
}

func compilePrune(r *resourceExport, pr *ExportPrune, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	r.defaults = boolOr(pr.Defaults, true)
	for i, s := range pr.JSONPointers {
		tokens, err := parsePointer(s)
		if err != nil {
			errs = append(errs, field.Invalid(p.Child("jsonPointers").Index(i), s, err.Error()))
			continue
		}
		r.pointers = append(r.pointers, tokens)
	}
	for i, s := range pr.JSONPaths {
		jp, err := parseJSONPath(s)
		if isUnsupported(err) {
			err = fmt.Errorf("prune paths support fields, quoted keys, indexes, [*], .*, '..' and ==/!= filters against a literal (%w)", err)
		}
		if err == nil && len(jp.steps) == 0 {
			err = fmt.Errorf("must name something below the root")
		}
		if err != nil {
			errs = append(errs, field.Invalid(p.Child("jsonPaths").Index(i), s, err.Error()))
			continue
		}
		r.paths = append(r.paths, jp)
	}
	for i, k := range pr.ScrubKeys {
		if k == "" {
			errs = append(errs, field.Required(p.Child("scrubKeys").Index(i), "a scrub key must not be empty"))
		}
	}
	return errs
}

// exportFields is what the embedded copy reads.
func exportFields(i Include) *FieldSet {
	switch i {
	case IncludeMetadataOnly:
		return NewFieldSet([]string{"apiVersion"}, []string{"kind"}, []string{"metadata"})
	case IncludeStatusOnly:
		return NewFieldSet([]string{"apiVersion"}, []string{"kind"}, []string{"metadata"}, []string{"status"})
	}
	return NewFieldSet([]string{})
}
