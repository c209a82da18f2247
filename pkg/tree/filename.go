package tree

import "strings"

// Values of Filename.GroupInPath.
const (
	// GroupAuto puts the group segment in the path for every type but the
	// core ones (group ""), which have none.
	GroupAuto = "auto"
	// GroupAlways puts the group in the path, "core" for the core types.
	GroupAlways = "always"
	// GroupNever leaves the group out of the path.
	GroupNever = "never"
)

// GroupedResourceTemplate is the per-row path when a Filename is set and
// no resource template is: DefaultResourceTemplate with the group segment
// before the kind.
const GroupedResourceTemplate = "{cluster}/{sourceNamespace}/{group}/{kind}/{sourceName}{extension}"

// Filename shapes the per-row paths of the perResource and split layouts,
// as the established spec.layout.filename does. A nil Filename keeps the
// paths Kollect has always written: DefaultResourceTemplate, {group}
// "core" for core types, {kind} in lower case.
type Filename struct {
	// GroupInPath is auto (the default), always or never: what {group}
	// renders. With auto it renders empty for core types, with never
	// always empty; an empty segment is dropped from the path.
	GroupInPath string
	// LowercaseKind (default true) renders {kind} in lower case; false
	// keeps the kind as the API spells it ("Deployment").
	LowercaseKind *bool
}

// withDefaults fills GroupInPath and LowercaseKind and checks GroupInPath.
func (f Filename) withDefaults() (Filename, error) {
	f.GroupInPath = or(f.GroupInPath, GroupAuto)
	if f.LowercaseKind == nil {
		lower := true
		f.LowercaseKind = &lower
	}
	if err := oneOf("layout.filename.groupInPath", f.GroupInPath, GroupAuto, GroupAlways, GroupNever); err != nil {
		return f, err
	}
	return f, nil
}

// groupSegment is what {group} renders for group under f (nil f: the
// historical "core" for the core group).
func (f *Filename) groupSegment(group string) string {
	switch {
	case f != nil && f.GroupInPath == GroupNever:
		return ""
	case group != "":
		return Sanitize(group)
	case f != nil && f.GroupInPath == GroupAuto:
		return ""
	}
	return "core"
}

// kindSegment is what {kind} renders for kind under f.
func (f *Filename) kindSegment(kind string) string {
	if f != nil && f.LowercaseKind != nil && !*f.LowercaseKind {
		return Sanitize(kind)
	}
	return Sanitize(strings.ToLower(kind))
}

// applyFilename defaults and checks s.Filename and picks the grouped
// template when s has none. It runs before the template defaults.
func (s Spec) applyFilename() (Spec, error) {
	if s.Filename == nil {
		return s, nil
	}
	f, err := s.Filename.withDefaults()
	if err != nil {
		return s, err
	}
	s.Filename = &f
	if s.ResourceTemplate == "" {
		s.ResourceTemplate = GroupedResourceTemplate
	}
	return s, nil
}
