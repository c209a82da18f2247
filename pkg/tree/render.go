package tree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v2"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// File is one rendered file.
type File struct {
	// Path is relative to the tree root, '/'-separated and sanitised.
	Path string
	// Data is the file's content.
	Data []byte
}

// header is the envelope without its items, in the contract's field order.
type header struct {
	SchemaVersion string               `json:"schemaVersion"`
	Checksum      string               `json:"checksum"`
	Revision      uint64               `json:"revision"`
	Generation    int64                `json:"generation"`
	Cluster       string               `json:"cluster"`
	Inventory     busv1.NamespacedName `json:"inventory"`
	ItemCount     int                  `json:"itemCount"`
	ExportedAt    time.Time            `json:"exportedAt"`
	PartIndex     *int                 `json:"partIndex,omitempty"`
	PartTotal     *int                 `json:"partTotal,omitempty"`
}

// jsonDocument is the JSON document: the envelope, items in the content.
type jsonDocument struct {
	header
	Items []any `json:"items"`
}

// index is the split layout's index file.
type index struct {
	header
	Files []IndexEntry `json:"files"`
}

// IndexEntry names one row's file in a split index.
type IndexEntry struct {
	// Path of the row's file.
	Path string `json:"path"`
	// TargetNamespace, TargetName and UID are the row's identity.
	TargetNamespace string `json:"targetNamespace"`
	TargetName      string `json:"targetName"`
	UID             string `json:"uid"`
	// Namespace, Name, Group, Version and Kind locate the source object.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Group     string `json:"group"`
	Version   string `json:"version"`
	Kind      string `json:"kind"`
}

// Render returns the files of env laid out by s, sorted by path. s's empty
// fields take their defaults; an invalid s is a sink.Permanent error.
func Render(s Spec, env busv1.Envelope) ([]File, error) {
	return render(s, env, jsonToYAML)
}

// render is Render converting per-row YAML with toYAML.
func render(s Spec, env busv1.Envelope, toYAML func([]byte) ([]byte, error)) ([]File, error) {
	s, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	rows := slices.Clone(env.Items)
	slices.SortFunc(rows, busv1.CompareRows)
	env.Items = rows
	var files []File
	switch s.Mode {
	case ModeDocument:
		files, err = s.renderDocument(&env)
	default:
		files, err = s.renderTree(&env, toYAML)
	}
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := checkPath(f.Path); err != nil {
			return nil, sink.Permanent(fmt.Errorf("render snapshot files: %w", err))
		}
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// renderDocument renders the one file of the document layout.
func (s Spec) renderDocument(env *busv1.Envelope) ([]File, error) {
	p, err := s.documentPath(env)
	if err != nil {
		return nil, sink.Permanent(err)
	}
	items := make([]any, len(env.Items))
	for i := range env.Items {
		items[i] = s.content(&env.Items[i])
	}
	var data []byte
	switch s.Format {
	case FormatJSON:
		data, err = encode(FormatJSON, jsonDocument{header: headerOf(env), Items: items})
	case FormatNDJSON:
		data, err = ndjson(items)
	default:
		data, err = encode(FormatYAML, items)
	}
	if err != nil {
		return nil, fmt.Errorf("encode document %s: %w", p, err)
	}
	return []File{{Path: p, Data: data}}, nil
}

// renderTree renders the per-row files and, in split mode, the index.
func (s Spec) renderTree(env *busv1.Envelope, toYAML func([]byte) ([]byte, error)) ([]File, error) {
	reserved := map[string]bool{}
	var indexPath string
	if s.Mode == ModeSplit {
		p, err := s.documentPath(env)
		if err != nil {
			return nil, sink.Permanent(err)
		}
		indexPath, reserved[p] = p, true
	}
	paths, err := s.rowPaths(env, env.Items, reserved)
	if err != nil {
		return nil, sink.Permanent(err)
	}
	files := make([]File, 0, len(paths)+1)
	for i := range env.Items {
		data, err := encodeWith(s.Format, s.content(&env.Items[i]), toYAML)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", paths[i], err)
		}
		files = append(files, File{Path: paths[i], Data: data})
	}
	if s.Mode == ModeSplit {
		data, err := s.renderIndex(env, paths)
		if err != nil {
			return nil, fmt.Errorf("encode index %s: %w", indexPath, err)
		}
		files = append(files, File{Path: indexPath, Data: data})
	}
	return files, nil
}

// renderIndex encodes the split index of env whose rows are at paths.
func (s Spec) renderIndex(env *busv1.Envelope, paths []string) ([]byte, error) {
	idx := index{header: headerOf(env), Files: make([]IndexEntry, len(paths))}
	for i, r := range env.Items {
		idx.Files[i] = IndexEntry{Path: paths[i], TargetNamespace: r.TargetNamespace, TargetName: r.TargetName,
			UID: r.UID, Namespace: r.Namespace, Name: r.Name, Group: r.Group, Version: r.Version, Kind: r.Kind}
	}
	if s.Format != FormatNDJSON {
		return encode(s.Format, idx)
	}
	lines := make([]any, 0, len(idx.Files)+1)
	lines = append(lines, idx.header)
	for _, e := range idx.Files {
		lines = append(lines, e)
	}
	return ndjson(lines)
}

func headerOf(env *busv1.Envelope) header {
	h := header{SchemaVersion: env.SchemaVersion, Checksum: env.Checksum, Revision: env.Revision,
		Generation: env.Generation, Cluster: env.Cluster, Inventory: env.Inventory, ItemCount: env.ItemCount,
		ExportedAt: env.ExportedAt.UTC()}
	if env.PartTotal > 0 {
		h.PartIndex, h.PartTotal = &env.PartIndex, &env.PartTotal
	}
	return h
}

// encode writes v as one YAML document, indented JSON or one NDJSON line,
// each ending with a newline.
func encode(format string, v any) ([]byte, error) {
	return encodeWith(format, v, jsonToYAML)
}

// encodeWith is encode converting JSON to YAML with toYAML.
func encodeWith(format string, v any, toYAML func([]byte) ([]byte, error)) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	switch format {
	case FormatYAML:
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return toYAML(buf.Bytes())
	case FormatJSON:
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ndjson writes one compact JSON line per value; no values is an empty
// file.
func ndjson(values []any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, v := range values {
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
	}
	return append([]byte{}, buf.Bytes()...), nil
}

// jsonToYAML converts JSON to YAML exactly as sigs.k8s.io/yaml.JSONToYAML
// does (sorted keys, numbers as written), but decodes the JSON with
// encoding/json instead of a YAML parser, several times faster.
func jsonToYAML(j []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return yaml.Marshal(bigIntegers(v))
}

// bigIntegers turns numbers beyond int64 that fit uint64 into uint64, as
// the YAML parser of JSONToYAML reads them; yaml.v2 writes every other
// json.Number as the YAML parser would have read it.
func bigIntegers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if _, err := x.Int64(); err != nil {
			if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
				return u
			}
		}
	case map[string]any:
		for k, e := range x {
			x[k] = bigIntegers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = bigIntegers(e)
		}
	}
	return v
}
