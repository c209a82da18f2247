package reference

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// Page is one rendered reference page.
type Page struct {
	// File is the page's file name, <kind lower-case>.md.
	File string
	// Kind is the kind documented.
	Kind string
	// Body is the Markdown.
	Body []byte
}

// Render returns a page per CRD in crdFS (the crds package's FS) and an
// index page, README.md, sorted by file name.
func Render(crdFS fs.FS) ([]Page, error) {
	files, err := fs.Glob(crdFS, "*.yaml")
	if err != nil {
		return nil, err
	}
	var pages []Page
	for _, f := range files {
		b, err := fs.ReadFile(crdFS, f)
		if err != nil {
			return nil, err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(b, &crd); err != nil {
			return nil, fmt.Errorf("decode %s: %w", f, err)
		}
		pages = append(pages, page(&crd))
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].File < pages[j].File })
	return append([]Page{index(pages)}, pages...), nil
}

func index(pages []Page) Page {
	var b strings.Builder
	b.WriteString("# API reference (kollect.dev/v1alpha1)\n\n")
	b.WriteString("Generated from the CustomResourceDefinitions by `make generate`; do not edit.\n\n| kind | page |\n|---|---|\n")
	for _, p := range pages {
		fmt.Fprintf(&b, "| %s | [%s](%s) |\n", p.Kind, p.File, p.File)
	}
	return Page{File: "README.md", Kind: "", Body: []byte(b.String())}
}

func page(crd *apiextensionsv1.CustomResourceDefinition) Page {
	var b strings.Builder
	n := crd.Spec.Names
	fmt.Fprintf(&b, "# %s\n\n", n.Kind)
	fmt.Fprintf(&b, "Generated from the CustomResourceDefinition by `make generate`; do not edit.\n\n")
	fmt.Fprintf(&b, "- API version: `%s/%s`\n", crd.Spec.Group, crd.Spec.Versions[0].Name)
	fmt.Fprintf(&b, "- Scope: %s\n", crd.Spec.Scope)
	if len(n.ShortNames) > 0 {
		fmt.Fprintf(&b, "- Short names: `%s`\n", strings.Join(n.ShortNames, "`, `"))
	}
	if len(n.Categories) > 0 {
		fmt.Fprintf(&b, "- Categories: `%s`\n", strings.Join(n.Categories, "`, `"))
	}
	v := crd.Spec.Versions[0]
	schema := v.Schema.OpenAPIV3Schema
	fmt.Fprintf(&b, "\n%s\n", oneParagraph(schema.Description))
	if len(v.AdditionalPrinterColumns) > 0 {
		b.WriteString("\n`kubectl get` columns: ")
		var cols []string
		for _, c := range v.AdditionalPrinterColumns {
			cols = append(cols, c.Name)
		}
		b.WriteString(strings.Join(cols, ", ") + ".\n")
	}
	for _, top := range []string{"spec", "status"} {
		p, ok := schema.Properties[top]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", top)
		if rules := validations(p); rules != "" {
			fmt.Fprintf(&b, "Rules: %s\n\n", rules)
		}
		b.WriteString("| field | type | required | default | validation | description |\n|---|---|---|---|---|---|\n")
		fields(&b, top, p)
	}
	return Page{File: strings.ToLower(n.Kind) + ".md", Kind: n.Kind, Body: []byte(b.String())}
}

// fields writes one row per property under path, depth first, in name order.
func fields(b *strings.Builder, path string, s apiextensionsv1.JSONSchemaProps) {
	if s.Items != nil && s.Items.Schema != nil {
		fields(b, path+"[]", *s.Items.Schema)
		return
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		p := s.Properties[k]
		fp := path + "." + k
		req := ""
		if slices.Contains(s.Required, k) {
			req = "yes"
		}
		def := ""
		if p.Default != nil {
			def = "`" + string(p.Default.Raw) + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s |\n", fp, typeOf(p), req, def, cell(validations(p)), cell(oneParagraph(p.Description)))
		fields(b, fp, p)
	}
}

func typeOf(p apiextensionsv1.JSONSchemaProps) string {
	switch {
	case p.XIntOrString:
		return "int or string"
	case p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields && p.Type == "":
		return "any"
	case p.Type == "array" && p.Items != nil && p.Items.Schema != nil:
		return typeOf(*p.Items.Schema) + "[]"
	case p.Type == "string" && p.Format != "":
		return "string (" + p.Format + ")"
	case p.Type == "":
		return "object"
	}
	return p.Type
}

// validations summarises the schema constraints and CEL rules of p.
func validations(p apiextensionsv1.JSONSchemaProps) string {
	var v []string
	if len(p.Enum) > 0 {
		var e []string
		for _, x := range p.Enum {
			e = append(e, strings.Trim(string(x.Raw), `"`))
		}
		v = append(v, "one of "+strings.Join(e, ", "))
	}
	if p.MinLength != nil {
		v = append(v, fmt.Sprintf("min length %d", *p.MinLength))
	}
	if p.MaxLength != nil {
		v = append(v, fmt.Sprintf("max length %d", *p.MaxLength))
	}
	if p.MinItems != nil {
		v = append(v, fmt.Sprintf("min items %d", *p.MinItems))
	}
	if p.MaxItems != nil {
		v = append(v, fmt.Sprintf("max items %d", *p.MaxItems))
	}
	if p.Minimum != nil {
		v = append(v, fmt.Sprintf("minimum %v", *p.Minimum))
	}
	if p.Maximum != nil {
		v = append(v, fmt.Sprintf("maximum %v", *p.Maximum))
	}
	if p.Pattern != "" {
		v = append(v, "pattern `"+p.Pattern+"`")
	}
	if p.Items != nil && p.Items.Schema != nil && p.Items.Schema.Type != "object" {
		if iv := validations(*p.Items.Schema); iv != "" {
			v = append(v, "each item: "+iv)
		}
	}
	for _, r := range p.XValidations {
		if r.Message != "" {
			v = append(v, r.Message)
		} else {
			v = append(v, "`"+r.Rule+"`")
		}
	}
	return strings.Join(v, "; ")
}

// oneParagraph joins a doc comment's lines into one line.
func oneParagraph(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
