package tree

import (
	"fmt"
	"strings"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// Formats, modes and contents of a Spec.
const (
	FormatYAML   = "yaml"
	FormatJSON   = "json"
	FormatNDJSON = "ndjson"

	ModeDocument    = "document"
	ModePerResource = "perResource"
	ModeSplit       = "split"

	ContentItem       = "item"
	ContentAttributes = "attributes"
	ContentManifest   = "manifest"

	// DefaultPathTemplate is the document (or split index) path.
	DefaultPathTemplate = "inventory/{namespace}/{name}{extension}"
	// DefaultResourceTemplate is the per-row path of perResource and split.
	DefaultResourceTemplate = "{cluster}/{sourceNamespace}/{kind}/{sourceName}{extension}"
)

// documentPlaceholders are the placeholders of PathTemplate.
var documentPlaceholders = []string{"cluster", "namespace", "name", "generation", "extension"}

// resourcePlaceholders are the placeholders of ResourceTemplate.
var resourcePlaceholders = []string{"cluster", "namespace", "name", "generation", "extension",
	"sourceNamespace", "sourceName", "kind", "group", "version", "uid", "targetNamespace", "targetName"}

// Spec says how a snapshot becomes files. The zero value means the
// defaults: one YAML document of the rows at DefaultPathTemplate.
type Spec struct {
	// Format is yaml (default), json or ndjson.
	Format string
	// Mode is document (default), perResource or split.
	Mode string
	// Content is item (default), attributes or manifest.
	Content string
	// PathTemplate is the document file or split index path; default
	// DefaultPathTemplate.
	PathTemplate string
	// ResourceTemplate is the per-row path of perResource and split;
	// default DefaultResourceTemplate.
	ResourceTemplate string
	// Filename, when set, shapes the {group} and {kind} segments of the
	// per-row paths and makes GroupedResourceTemplate the default
	// ResourceTemplate (see Filename).
	Filename *Filename
}

// SpecFor applies the defaults to a snapshot sink spec's spec.pathTemplate,
// spec.serialization.format and spec.layout. An invalid value is a
// sink.Permanent error naming the field.
func SpecFor(spec v1alpha1.KollectSnapshotSinkSpec) (Spec, error) {
	s := Spec{PathTemplate: spec.PathTemplate}
	if spec.Serialization != nil {
		s.Format = spec.Serialization.Format
	}
	if spec.Layout != nil {
		s.Mode, s.Content, s.ResourceTemplate = spec.Layout.Mode, spec.Layout.Content, spec.Layout.PathTemplate
		if f := spec.Layout.Filename; f != nil {
			s.Filename = &Filename{GroupInPath: f.GroupInPath, LowercaseKind: f.LowercaseKind}
		}
	}
	return s.withDefaults()
}

// Extension is the file extension of the format, with its dot.
func (s Spec) Extension() string {
	if s.Format == "" {
		return "." + FormatYAML
	}
	return "." + s.Format
}

// withDefaults fills empty fields and validates the rest.
func (s Spec) withDefaults() (Spec, error) {
	s, err := s.applyFilename()
	if err != nil {
		return s, err
	}
	s.Format = or(s.Format, FormatYAML)
	s.Mode = or(s.Mode, ModeDocument)
	s.Content = or(s.Content, ContentItem)
	s.PathTemplate = or(s.PathTemplate, DefaultPathTemplate)
	s.ResourceTemplate = or(s.ResourceTemplate, DefaultResourceTemplate)
	if err := oneOf("serialization.format", s.Format, FormatYAML, FormatJSON, FormatNDJSON); err != nil {
		return s, err
	}
	if err := oneOf("layout.mode", s.Mode, ModeDocument, ModePerResource, ModeSplit); err != nil {
		return s, err
	}
	if err := oneOf("layout.content", s.Content, ContentItem, ContentAttributes, ContentManifest); err != nil {
		return s, err
	}
	if err := checkTemplate("pathTemplate", s.PathTemplate, documentPlaceholders); err != nil {
		return s, err
	}
	if !strings.Contains(s.PathTemplate, "{namespace}") || !strings.Contains(s.PathTemplate, "{name}") {
		return s, sink.Permanent(fmt.Errorf("spec.pathTemplate %q must contain {namespace} and {name}", s.PathTemplate))
	}
	if err := checkTemplate("layout.pathTemplate", s.ResourceTemplate, resourcePlaceholders); err != nil {
		return s, err
	}
	return s, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func oneOf(field, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return sink.Permanent(fmt.Errorf("spec.%s %q is not one of %s", field, v, strings.Join(allowed, ", ")))
}

// checkTemplate refuses unknown placeholders, unbalanced braces, "..",
// a leading "/", and paths into .kollect/ or a .git folder.
func checkTemplate(field, tmpl string, allowed []string) error {
	bad := func(why string) error {
		return sink.Permanent(fmt.Errorf("spec.%s %q %s", field, tmpl, why))
	}
	switch {
	case strings.Contains(tmpl, ".."):
		return bad(`must not contain ".."`)
	case strings.HasPrefix(tmpl, "/"):
		return bad(`must not start with "/"`)
	}
	_, err := expand(tmpl, func(name string) (string, bool) {
		for _, a := range allowed {
			if a == name {
				return "x", true
			}
		}
		return "", false
	})
	if err != nil {
		return bad(err.Error())
	}
	return checkLiteralSegments(tmpl, bad)
}

// checkLiteralSegments refuses template segments that would write into
// Kollect's state folder or Git's own folder.
func checkLiteralSegments(tmpl string, bad func(string) error) error {
	for i, seg := range strings.Split(tmpl, "/") {
		if seg == ".git" || (i == 0 && seg == stateDir) || seg == "." {
			return bad(fmt.Sprintf("must not have a %q segment", seg))
		}
	}
	return nil
}
