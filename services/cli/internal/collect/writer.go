package collect

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"sigs.k8s.io/yaml"
)

func memCache(dc discovery.DiscoveryInterface) discovery.CachedDiscoveryInterface {
	return memory.NewMemCacheClient(dc)
}

// writer writes records to standard output (one stream) or as files under a
// folder, in the files' document projection: JSON holds the envelope, YAML
// and NDJSON the sorted row list.
type writer struct {
	format string
	dir    string // "" for the stream
	ext    string
	out    *bufio.Writer
	n      int
}

func newWriter(format, output string, out io.Writer) (*writer, error) {
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
	if output != "" && output != "-" {
		w.dir = output
		return w, os.MkdirAll(output, 0o755)
	}
	w.out = bufio.NewWriterSize(out, 1<<16)
	if w.format == "json" {
		_, _ = w.out.WriteString("[")
	}
	return w, nil
}

func (w *writer) write(r Record) error {
	if w.dir != "" {
		return w.writeFile(r)
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
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, _ = w.out.Write(b)
	if w.format == "ndjson" {
		_, _ = w.out.WriteString("\n")
	}
	return nil
}

func (w *writer) writeFile(r Record) error {
	p := filepath.Join(w.dir, filepath.FromSlash(r.Path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = document(bw, w.format, r)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// document writes one record's file: the envelope as JSON, the rows as a
// YAML list or as NDJSON.
func document(w io.Writer, format string, r Record) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.Envelope)
	case "yaml":
		b, err := yaml.Marshal(r.Envelope.Items)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	enc := json.NewEncoder(w)
	for _, row := range r.Envelope.Items {
		if err := enc.Encode(row); err != nil {
			return err
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
