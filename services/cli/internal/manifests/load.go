package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Object is one decoded document.
type Object struct {
	// File is the path the document was read from.
	File string
	// Index is the document's position in the file, from 0.
	Index int
	// Object is the document as read.
	Object *unstructured.Unstructured
}

// Source names where the object came from: "file.yaml" or "file.yaml#2".
func (o Object) Source() string {
	if o.Index == 0 {
		return o.File
	}
	return fmt.Sprintf("%s#%d", o.File, o.Index)
}

// Stdin is the name that stands for standard input, as for kubectl apply -f -.
const Stdin = "-"

// Load reads every .yaml, .yml and .json file under dir (or the single file
// dir names), in lexical order. Empty documents are skipped; a document that
// is not a Kubernetes object (no apiVersion or kind) is an error naming the
// file.
func Load(dir string) ([]Object, error) {
	return LoadWith(dir, os.ReadFile)
}

// LoadWith is Load reading each file with read; with dir Stdin, read is
// asked for Stdin alone.
func LoadWith(dir string, read func(string) ([]byte, error)) ([]Object, error) {
	files, err := Files(dir)
	if err != nil {
		return nil, err
	}
	var out []Object
	var errs []error
	for _, f := range files {
		objs, err := loadFile(f, read)
		errs = append(errs, err)
		out = append(out, objs...)
	}
	return out, errors.Join(errs...)
}

func loadFile(path string, read func(string) ([]byte, error)) ([]Object, error) {
	b, err := read(path)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []Object
	for i := 0; ; i++ {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, fmt.Errorf("%s: document %d: %w", path, i, err)
		}
		if len(m) == 0 {
			i--
			continue
		}
		// Integers as int64, as the API server decodes them: CEL rules
		// over integer fields reject float64.
		j, err := json.Marshal(m)
		if err == nil {
			err = utiljson.Unmarshal(j, &m)
		}
		if err != nil {
			return out, fmt.Errorf("%s: document %d: %w", path, i, err)
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return out, fmt.Errorf("%s: document %d: not a Kubernetes object (apiVersion and kind are required)", path, i)
		}
		out = append(out, Object{File: path, Index: i, Object: u})
	}
}

// Files lists the .yaml, .yml and .json files under dir (or the single file
// dir names), in lexical order.
func Files(dir string) ([]string, error) {
	if dir == Stdin {
		return []string{Stdin}, nil
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	slices.Sort(files)
	return files, nil
}
