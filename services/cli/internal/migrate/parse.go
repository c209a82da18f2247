package migrate

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parsed is a file cut at its document separators, so that documents
// without established spellings are written back byte for byte.
type parsed struct {
	name   string
	raw    []byte
	chunks []chunk
}

// chunk is one document: the separator line before it ("" for the first),
// its text and its node tree (nil when it holds no object).
type chunk struct {
	sep, body string
	doc       *yaml.Node
}

// parse splits b at lines starting with "---" and parses each document.
func parse(name string, b []byte) (*parsed, error) {
	p := &parsed{name: name, raw: b}
	var cur chunk
	var body strings.Builder
	flush := func() error {
		cur.body = body.String()
		body.Reset()
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(cur.body), &doc); err != nil {
			return fmt.Errorf("%s: document %d: %w", name, len(p.chunks), err)
		}
		if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 && len(doc.Content[0].Content) > 0 {
			cur.doc = &doc
		}
		p.chunks = append(p.chunks, cur)
		cur = chunk{}
		return nil
	}
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if isSeparator(string(line)) {
			if err := flush(); err != nil {
				return nil, err
			}
			cur.sep = string(line)
			continue
		}
		body.Write(line)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return p, nil
}

// isSeparator reports whether line is a YAML document separator.
func isSeparator(line string) bool {
	rest, ok := strings.CutPrefix(line, "---")
	return ok && (rest == "" || strings.TrimSpace(rest) == "" || rest[0] == ' ' || rest[0] == '\t')
}
