package sinktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/pkg/testenv"
)

// DocObject is one object of a ```yaml block of a documentation page.
type DocObject[S any] struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	StringData map[string]string `json:"stringData"`
	// Spec is decoded for objects of the kind DocObjects was asked for.
	Spec S `json:"-"`
}

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// DocObjects returns every object of every ```yaml block of page, a path
// relative to the repository root (docs/sinks/s3.md), decoding the spec of
// objects of kind as S strictly: a field S does not know fails the test, so
// an example cannot drift from the API. Backends test their user
// documentation with it.
func DocObjects[S any](t testing.TB, page, kind string) []DocObject[S] {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, page)) //nolint:gosec // G304: a documentation page of this repository, named by a test
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeDocObjects[S](md, kind)
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	return objs
}

func decodeDocObjects[S any](md []byte, kind string) ([]DocObject[S], error) {
	var objs []DocObject[S]
	for _, m := range yamlBlock.FindAllSubmatch(md, -1) {
		for _, doc := range strings.Split(string(m[1]), "\n---\n") {
			var o struct {
				DocObject[S]
				Spec json.RawMessage `json:"spec"`
			}
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				return nil, fmt.Errorf("decode a yaml block: %w", err)
			}
			if o.Kind == kind {
				dec := json.NewDecoder(bytes.NewReader(o.Spec))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&o.DocObject.Spec); err != nil {
					return nil, fmt.Errorf("decode the spec of %s %s: %w", kind, o.Metadata.Name, err)
				}
			}
			objs = append(objs, o.DocObject)
		}
	}
	if len(objs) == 0 {
		return nil, errors.New("no yaml block")
	}
	return objs, nil
}

// OneDoc returns the one object of kind among objs, failing the test when
// there is none or more than one.
func OneDoc[S any](t testing.TB, objs []DocObject[S], kind string) DocObject[S] {
	t.Helper()
	var found []DocObject[S]
	for _, o := range objs {
		if o.Kind == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("the page has %d objects of kind %s, want 1", len(found), kind)
	}
	return found[0]
}
