package v1alpha1_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// yamlBlock matches a fenced YAML block of a Markdown page.
var yamlBlock = regexp.MustCompile("(?s)```ya?ml\n(.*?)```")

// testMarkdownExamplesApply creates, as a server-side dry run, every
// Kubernetes object of every YAML block in docs/**/*.md (the generated
// reference excepted), so that no documented example is rejected by the
// real API server.
func testMarkdownExamplesApply(t *testing.T, c client.Client) {
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") || strings.Contains(path, "/docs/reference/") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range yamlBlock.FindAllSubmatch(b, -1) {
			for _, obj := range objectsIn(t, rel, m[1]) {
				n++
				ensureNamespace(t, c, obj.GetNamespace())
				// Pages reuse the names of docs/examples objects, which the
				// examples test created for real: a suffix keeps the dry run
				// from colliding with them.
				obj.SetName(obj.GetName() + "-md")
				err := c.Create(ctx, obj, client.DryRunAll)
				if meta.IsNoMatchError(err) && obj.GroupVersionKind().Group != v1alpha1.Group {
					// Tool configuration (a Kustomization) or a kind of an
					// add-on this API server does not serve.
					n--
					continue
				}
				if err != nil {
					t.Errorf("%s: %s %s/%s rejected: %v", rel, obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no example objects found in docs/*.md")
	}
	t.Logf("%d example objects from docs/*.md accepted", n)
}

// objectsIn decodes the Kubernetes objects of one YAML block; documents
// without apiVersion and kind (values files, fragments) are not objects.
func objectsIn(t *testing.T, file string, block []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range bytes.Split(block, []byte("\n---")) {
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			t.Errorf("%s: a YAML block does not parse: %v", file, err)
			continue
		}
		if m["apiVersion"] == nil || m["kind"] == nil {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
	return out
}

func ensureNamespace(t *testing.T, c client.Client, name string) {
	t.Helper()
	if name == "" {
		return
	}
	err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}
