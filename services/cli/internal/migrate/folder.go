package migrate

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"kollect.dev/kollect/services/cli/internal/manifests"
)

// File is one file of a folder, before and after the rewrites.
type File struct {
	// Path is the file as found under the folder.
	Path string
	// Old is the file's content, New the content migrate would write:
	// equal, byte for byte, when nothing is rewritten.
	Old, New []byte
	// Findings are the established spellings of the file.
	Findings []Located
	// JSON files are reported, never rewritten.
	JSON bool
}

// Changed reports whether migrate would write the file.
func (f File) Changed() bool { return !bytes.Equal(f.Old, f.New) }

// Folder reads every .yaml, .yml and .json file under dir (or the single
// file dir names) in lexical order, finds the established spellings of its
// kollect.dev objects and computes the canonical content. Nothing is
// written. A file that does not parse is an error naming it.
func Folder(dir string, read func(string) ([]byte, error)) ([]File, error) {
	names, err := manifests.Files(dir)
	if err != nil {
		return nil, err
	}
	files := make([]*parsed, 0, len(names))
	idx := Index{}
	for _, name := range names {
		b, err := read(name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		p, err := parse(name, b)
		if err != nil {
			return nil, err
		}
		for _, c := range p.chunks {
			if o, ok := objectOf(c.doc); ok {
				idx.add(o)
			}
		}
		files = append(files, p)
	}
	out := make([]File, 0, len(files))
	for _, p := range files {
		f, err := p.migrate(idx)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// migrate applies the rules to every object of p.
func (p *parsed) migrate(idx Index) (File, error) {
	f := File{Path: p.name, Old: p.raw, JSON: strings.EqualFold(filepath.Ext(p.name), ".json")}
	var out bytes.Buffer
	n := 0
	for _, c := range p.chunks {
		out.WriteString(c.sep)
		if c.doc == nil {
			out.WriteString(c.body)
			continue
		}
		source := p.name
		if n > 0 {
			source = fmt.Sprintf("%s#%d", p.name, n)
		}
		n++
		o, ok := objectOf(c.doc)
		var found []Finding
		if ok {
			for _, r := range rules[o.kind] {
				found = append(found, r(o, idx)...)
			}
		}
		for _, fd := range found {
			if f.JSON && fd.Kept == "" {
				fd.Kept = "JSON files are not rewritten; change it by hand"
			}
			f.Findings = append(f.Findings, Located{Source: source, Object: o.String(), Finding: fd})
		}
		if f.JSON || !rewritten(found) {
			out.WriteString(c.body)
			continue
		}
		b, err := encode(c.doc)
		if err != nil {
			return f, fmt.Errorf("write %s: %w", source, err)
		}
		out.Write(b)
	}
	f.New = out.Bytes()
	if f.JSON {
		f.New = f.Old
	}
	return f, nil
}

// rewritten reports whether any finding was rewritten (not kept).
func rewritten(found []Finding) bool {
	for _, f := range found {
		if f.Kept == "" {
			return true
		}
	}
	return false
}

func encode(doc *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
