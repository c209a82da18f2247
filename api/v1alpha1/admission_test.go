package v1alpha1_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// TestAdmission runs every admission check against one real kube-apiserver
// with api/crds installed.
func TestAdmission(t *testing.T) {
	kube := testenv.StartKube(t)
	// Strict field validation turns a field the schema does not know (a
	// typo in an example) into an error instead of silently pruning it.
	c := client.WithFieldValidation(kube.Client, metav1.FieldValidationStrict)

	t.Run("examples apply", func(t *testing.T) { testExamplesApply(t, c) })
	t.Run("examples in the documentation apply", func(t *testing.T) { testMarkdownExamplesApply(t, c) })
	t.Run("invalid objects are rejected", func(t *testing.T) { testInvalidObjects(t, c) })
	t.Run("the schema and Validate agree on endpoint forms", func(t *testing.T) { testSchemaAndValidateAgree(t, c) })
	t.Run("a connection test's spec is immutable", func(t *testing.T) { testConnectionTestImmutable(t, c) })
	t.Run("sink ref entries the schema cannot type reach control", func(t *testing.T) { testUntypedBindings(t, c) })
	t.Run("the established v1alpha1 spellings are accepted", func(t *testing.T) { testEstablishedSpellings(t, c) })
}

// testUntypedBindings pins the one gap of the schema (docs/api-decisions.md):
// a sink ref entry is a name or an object, which a structural schema cannot
// type, so an entry of another JSON type is admitted, and must decode into
// a binding whose DecodeError control reports.
func testUntypedBindings(t *testing.T, c client.Client) {
	ctx := context.Background()
	ns := createNamespace(t, c, "untyped-bindings")
	obj := &unstructured.Unstructured{Object: fromYAML(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: odd}
spec: {eventSinkRefs: [kafka, 5, {name: nats, maxExportBytes: 2048}]}
`)}
	obj.SetNamespace(ns)
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	var inv v1alpha1.KollectInventory
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), &inv); err != nil {
		t.Fatalf("get as a typed object: %v", err)
	}
	refs := inv.Spec.EventSinkRefs
	if len(refs) != 3 {
		t.Fatalf("got %d event sink refs, want 3", len(refs))
	}
	if refs[0].Name != "kafka" || refs[0].DecodeError() != nil {
		t.Errorf("entry 0 = %q (%v), want kafka", refs[0].Name, refs[0].DecodeError())
	}
	if refs[1].DecodeError() == nil {
		t.Errorf("entry 1 (a number) decoded without error")
	}
	if refs[2].Name != "nats" || refs[2].MaxExportBytes == nil || *refs[2].MaxExportBytes != 2048 {
		t.Errorf("entry 2 = %+v, want nats with maxExportBytes 2048", refs[2])
	}
}

// readDocs decodes every YAML document of a file.
func readDocs(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var out []*unstructured.Unstructured
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		if m := fromYAML(t, string(doc)); len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// fromYAML parses YAML the way the API machinery does: integers stay
// int64, so values compare equal to what the server returns.
func fromYAML(t *testing.T, s string) map[string]any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(s))
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(j, &m); err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return m
}

// lookup returns the value at a dotted path; numeric segments index lists.
func lookup(obj any, path string) (any, bool) {
	cur := obj
	for _, seg := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[seg]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// assertInvalid checks that err is the API server's Invalid error naming
// field among its causes and in its message.
func assertInvalid(t *testing.T, err error, field, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("create succeeded, want an Invalid error naming %s", field)
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("got %v (reason %s), want an Invalid error naming %s", err, apierrors.ReasonForError(err), field)
	}
	if !strings.Contains(err.Error(), field) {
		t.Errorf("error %q does not name %s", err, field)
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		var fields []string
		for _, cause := range status.Status().Details.Causes {
			if cause.Field == field {
				fields = nil
				break
			}
			fields = append(fields, cause.Field)
		}
		if fields != nil {
			t.Errorf("no cause has field %s; causes name %v (error %q)", field, fields, err)
		}
	}
	if msg != "" && !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not say %q", err, msg)
	}
}

func testConnectionTestImmutable(t *testing.T, c client.Client) {
	ctx := context.Background()
	ns := createNamespace(t, c, "immutable")
	obj := &unstructured.Unstructured{Object: fromYAML(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectConnectionTest
metadata: {name: probe}
spec: {sinkRef: {snapshotSinkRef: git-main}}
`)}
	obj.SetNamespace(ns)
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := unstructured.SetNestedField(obj.Object, "other", "spec", "sinkRef", "snapshotSinkRef"); err != nil {
		t.Fatal(err)
	}
	assertInvalid(t, c.Update(ctx, obj), "spec", "spec is immutable")
}

// createNamespace creates a namespace for one group of cases.
func createNamespace(t *testing.T, c client.Client, name string) string {
	t.Helper()
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(name)
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	return name
}
