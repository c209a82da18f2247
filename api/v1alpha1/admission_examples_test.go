package v1alpha1_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// exampleDefaults are values the API server must fill in on the examples,
// keyed by "Kind namespace/name" and then by field path.
var exampleDefaults = map[string]map[string]any{
	"KollectInventory team-a/staging": {
		"spec.exportMinInterval": "30s",
		"spec.deletionPolicy":    "Retain",
	},
	"KollectInventory team-a/apps":                  {"spec.exportMinInterval": "30s"},
	"KollectProfile team-a/certificates":            {"spec.attributes.5.type": "any"},
	"KollectProfile platform/deployments-full":      {"spec.export.dedupeIdentity": true, "spec.export.prune.defaults": true},
	"KollectTarget team-a/deployments":              {"spec.watchMode": "All"},
	"KollectSnapshotSink team-a/git-minimal":        {"spec.cluster": "default", "spec.connectionTest": true},
	"KollectSnapshotSink team-a/git-main":           {"spec.connectionTest": true},
	"KollectSnapshotSink kollect-system/s3-parquet": {"spec.cluster": "default"},
	"KollectDatabaseSink team-a/mongodb-inventory":  {"spec.cluster": "default", "spec.connectionTest": true},
	"KollectDatabaseSink team-a/postgres-inventory": {"spec.postgres.schema": "inventory"},
	"KollectEventSink team-a/kafka-inventory":       {"spec.cluster": "default"},
	"KollectConnectionTest team-a/postgres-probe":   {"spec.ttlSecondsAfterFinished": int64(300)},
	"KollectClusterInventory /fleet":                {"spec.sinkNamespace": "kollect-system"},
	"KollectClusterInventory /team-a-deployments": {
		"spec.dedupe":            "keepAll",
		"spec.exportMinInterval": "30s",
		"spec.sinkNamespace":     "kollect-system",
	},
	"KollectClusterScope /platform": {"spec.eventSinkRefs": []any{}},
}

func testExamplesApply(t *testing.T, c client.Client) {
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	kinds := map[string]bool{}
	sinkTypes := map[string]bool{}
	minimalGit := false
	checked := map[string]bool{}
	for _, file := range files {
		for _, sent := range readDocs(t, file) {
			key := fmt.Sprintf("%s %s/%s", sent.GetKind(), sent.GetNamespace(), sent.GetName())
			obj := sent.DeepCopy()
			if err := c.Create(ctx, obj); err != nil {
				t.Errorf("%s: create %s: %v", filepath.Base(file), key, err)
				continue
			}
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(sent.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(sent), got); err != nil {
				t.Fatalf("get %s: %v", key, err)
			}
			if diff := missing(sent.Object["spec"], got.Object["spec"], "spec"); diff != "" {
				t.Errorf("%s: the server dropped or changed fields:\n%s", key, diff)
			}
			for path, want := range exampleDefaults[key] {
				v, _ := lookup(got.Object, path)
				if diff := cmp.Diff(want, v); diff != "" {
					t.Errorf("%s: %s (-want +got):\n%s", key, path, diff)
				}
				checked[key] = true
			}
			if sent.GroupVersionKind().Group != v1alpha1.Group {
				continue
			}
			kinds[sent.GetKind()] = true
			if typ, ok := lookup(sent.Object, "spec.type"); ok {
				sinkTypes[typ.(string)] = true
			}
			if spec, _ := sent.Object["spec"].(map[string]any); sent.GetKind() == "KollectSnapshotSink" &&
				spec["type"] == "git" && len(spec) == 2 && spec["endpoint"] != nil {
				minimalGit = true
			}
			decodeTyped(t, key, got)
		}
	}
	for key := range exampleDefaults {
		if !checked[key] {
			t.Errorf("defaults listed for %s, but no example has that name", key)
		}
	}
	var wantKinds []string
	for _, o := range v1alpha1.Objects() {
		wantKinds = append(wantKinds, fmt.Sprintf("%T", o.Object)[len("*v1alpha1."):])
	}
	if diff := cmp.Diff(sortedKeys(kinds), sorted(wantKinds)); diff != "" {
		t.Errorf("examples do not cover every kind (-examples +kinds):\n%s", diff)
	}
	wantTypes := []string{"bigquery", "gcs", "git", "gitlab", "kafka", "mongodb", "nats", "postgres", "s3"}
	if diff := cmp.Diff(sortedKeys(sinkTypes), wantTypes); diff != "" {
		t.Errorf("examples do not cover every sink type (-examples +types):\n%s", diff)
	}
	if !minimalGit {
		t.Error("no example is a git sink with only type and endpoint")
	}
}

// decodeTyped converts a stored object to its Go type, as controllers will,
// and checks that every sink binding decoded.
func decodeTyped(t *testing.T, key string, u *unstructured.Unstructured) {
	t.Helper()
	s := testenv.Scheme()
	typed, err := s.New(u.GroupVersionKind())
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		t.Errorf("%s: decode into %T: %v", key, typed, err)
		return
	}
	var errs []error
	switch o := typed.(type) {
	case *v1alpha1.KollectInventory:
		for _, b := range slices.Concat(o.Spec.SnapshotSinkRefs, o.Spec.DatabaseSinkRefs, o.Spec.EventSinkRefs) {
			errs = append(errs, b.DecodeError())
		}
	case *v1alpha1.KollectClusterInventory:
		for _, b := range slices.Concat(o.Spec.SnapshotSinkRefs, o.Spec.DatabaseSinkRefs, o.Spec.EventSinkRefs) {
			errs = append(errs, b.DecodeError())
		}
	}
	for _, err := range errs {
		if err != nil {
			t.Errorf("%s: sink binding: %v", key, err)
		}
	}
}

// missing reports fields of sent that got lacks or holds differently.
func missing(sent, got any, path string) string {
	switch s := sent.(type) {
	case nil:
		return ""
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: sent an object, stored %v\n", path, got)
		}
		var out string
		for k, v := range s {
			out += missing(v, g[k], path+"."+k)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(s) {
			return fmt.Sprintf("%s: sent %v, stored %v\n", path, sent, got)
		}
		var out string
		for i := range s {
			out += missing(s[i], g[i], fmt.Sprintf("%s[%d]", path, i))
		}
		return out
	default:
		if diff := cmp.Diff(sent, got); diff != "" {
			return fmt.Sprintf("%s: %s", path, diff)
		}
		return ""
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return sorted(out)
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}
