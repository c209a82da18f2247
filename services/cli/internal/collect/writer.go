package collect

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/tree"
)

// writer writes records to standard output (one stream) or as files under a
// folder: DIR/<context>/ holds exactly the files a Git snapshot sink of
// cluster <context> with the same format and layout would commit
// (pkg/tree.Render), without the sink's .kollect/ state.
type writer struct {
	format string
	dir    string // "" for the stream
	ext    string
	spec   tree.Spec
	out    *bufio.Writer
	n      int
}

func newWriter(format, layout, output string, out io.Writer) (*writer, error) {
	w := &writer{format: format}
	switch format {
	case "", "ndjson":
		w.format, w.ext = "ndjson", ".ndjson"
	case "json":
		w.ext = ".json"
	case "yaml":
		w.ext = ".yaml"
	default:
		return nil, fmt.Errorf("--format %q: must be ndjson, json or yaml", format)
	}
	w.spec = tree.Spec{Format: w.format, Mode: layout}
	if _, err := w.spec.DocumentPath(busv1.Envelope{Inventory: busv1.NamespacedName{Name: "x"}}); err != nil {
		return nil, fmt.Errorf("--layout %q: must be document, perResource or split", layout)
	}
	if output != "" && output != "-" {
		w.dir = output
		return w, os.MkdirAll(output, 0o755) //nolint:gosec // G301: --output is the user's tree to share or commit; the umask applies
	}
	w.out = bufio.NewWriterSize(out, 1<<16)
	if w.format == "json" {
		_, _ = w.out.WriteString("[")
	}
	return w, nil
}

func (w *writer) write(r Record) error {
	if w.dir != "" {
		return w.writeFiles(r)
	}
	defer func() { w.n++ }()
	switch w.format {
	case "yaml":
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, _ = w.out.WriteString("---\n")
		_, err = w.out.Write(b)
		return err
	case "json":
		if w.n > 0 {
			_, _ = w.out.WriteString(",")
		}
		_, _ = w.out.WriteString("\n")
	}
	if err := writeRecordJSON(w.out, r); err != nil {
		return err
	}
	if w.format == "ndjson" {
		_, _ = w.out.WriteString("\n")
	}
	return nil
}

// writeFiles writes the files of r's envelope under DIR/<context>/.
func (w *writer) writeFiles(r Record) error {
	files, err := tree.Render(w.spec, r.Envelope)
	if err != nil {
		return fmt.Errorf("render %s: %w", r.Inventory, err)
	}
	root := filepath.Join(w.dir, tree.Sanitize(r.Context))
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil { //nolint:gosec // G301: as for --output above
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil { //nolint:gosec // G306: inventory files for the user to read and commit
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

func (w *writer) close() error {
	if w.out == nil {
		return nil
	}
	if w.format == "json" {
		_, _ = w.out.WriteString("\n]\n")
	}
	return w.out.Flush()
}
