package chart_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"kollect.dev/kollect/pkg/testenv"
)

const (
	releaseName = "kollect"
	namespace   = "kollect-system"
)

// valuesSets are the values files every rendering test covers; "" is the chart's defaults.
var valuesSets = map[string]string{
	"default":       "",
	"minimal":       "ci/minimal-values.yaml",
	"full":          "ci/full-values.yaml",
	"external-nats": "ci/external-nats-values.yaml",
	"fleet":         "ci/fleet-values.yaml",
	"nats-tls":      "ci/nats-tls-values.yaml",
	"small":         valuesSmall,
}

// setNames returns the keys of valuesSets in a stable order.
func setNames() []string {
	names := make([]string, 0, len(valuesSets))
	for n := range valuesSets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// helmCmd is the Helm CLI from the tools folder with its state in a temporary home.
func helmCmd(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := testenv.Tool("bin/helm")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	return cmd
}

// helm runs the Helm CLI and returns its standard output, failing the test on an error.
func helm(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := helmCmd(t, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s%s", strings.Join(args, " "), err, stderr.String(), out)
	}
	return out
}

// render runs helm template on the kollect chart with the values files and --set pairs.
func render(t testing.TB, values string, sets ...string) []byte {
	t.Helper()
	args := []string{"template", releaseName, ".", "--namespace", namespace}
	if values != "" {
		args = append(args, "--values", values)
	}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	return helm(t, args...)
}

// decode splits a multi-document YAML stream into objects, skipping empty documents.
func decode(t testing.TB, manifests []byte) []*unstructured.Unstructured {
	t.Helper()
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(manifests), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		err := d.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decode rendered manifests: %v", err)
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// find returns the object of kind and name, failing the test when it is missing.
func find(t testing.TB, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("rendered manifests hold no %s %s", kind, name)
	return nil
}

// index lists "Kind/name" of every object.
func index(objs []*unstructured.Unstructured) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	slices.Sort(out)
	return out
}

// repoPath is a path relative to the repository root.
func repoPath(t testing.TB, rel string) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, rel)
}

// helmErr runs the Helm CLI and returns its combined output and error.
func helmErr(t testing.TB, args ...string) (string, error) {
	t.Helper()
	out, err := helmCmd(t, args...).CombinedOutput()
	return string(out), err
}
