package v1alpha1_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"

	"kollect.dev/kollect/api/v1alpha1"
)

func TestSinkBindingJSON(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantName  string
		wantError bool
		// out is the re-encoded list; empty means identical to in.
		out string
	}{
		{name: "a plain name decodes to the name and re-encodes as a name",
			in: `["git-main"]`, wantName: "git-main"},
		{name: "an object decodes its fields and re-encodes as an object",
			in: `[{"name":"s3-archive","exportMinInterval":"1h0m0s","maxExportBytes":4096}]`, wantName: "s3-archive"},
		{name: "an object with only a name stays an object",
			in: `[{"name":"git-main"}]`, wantName: "git-main"},
		{name: "a number is kept verbatim and reported",
			in: `[5]`, wantError: true},
		{name: "null is kept verbatim and reported",
			in: `[null]`, wantError: true},
		{name: "an object with an unknown field is kept verbatim and reported",
			in: `[{"name":"git-main","exportMinIntreval":"1m"}]`, wantName: "git-main", wantError: true},
		{name: "field names are case-sensitive",
			in: `[{"Name":"git-main"}]`, wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []v1alpha1.SinkBinding
			if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(tt.in), &got); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(got) != 1 {
				t.Fatalf("decoded %d bindings, want 1", len(got))
			}
			if got[0].Name != tt.wantName {
				t.Errorf("Name = %q, want %q", got[0].Name, tt.wantName)
			}
			if err := got[0].DecodeError(); (err != nil) != tt.wantError {
				t.Errorf("DecodeError() = %v, want error %v", err, tt.wantError)
			}
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			want := tt.out
			if want == "" {
				want = tt.in
			}
			if string(out) != want {
				t.Errorf("re-encoded %s, want %s", out, want)
			}
		})
	}
}

func TestSinkBindingBuiltInGo(t *testing.T) {
	d := metav1.Duration{Duration: 5 * time.Minute}
	n := int64(2048)
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "a namespaced binding with only a name encodes as a name",
			in: v1alpha1.SinkBinding{Name: "git-main"}, want: `"git-main"`},
		{name: "a namespaced binding with overrides encodes as an object",
			in:   v1alpha1.SinkBinding{Name: "kafka", ExportMinInterval: &d, MaxExportBytes: &n},
			want: `{"name":"kafka","exportMinInterval":"5m0s","maxExportBytes":2048}`},
		{name: "a cluster binding with only a name encodes as a name",
			in: v1alpha1.ClusterSinkBinding{Name: "fleet-git"}, want: `"fleet-git"`},
		{name: "a cluster binding with a namespace encodes as an object",
			in:   v1alpha1.ClusterSinkBinding{Name: "fleet-git", Namespace: "platform"},
			want: `{"name":"fleet-git","namespace":"platform"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("encoded %s, want %s", out, tt.want)
			}
		})
	}
}

// The unstructured converter is what controller-runtime uses for
// unstructured objects and server-side apply; it must honour both forms.
func TestSinkBindingUnstructuredRoundTrip(t *testing.T) {
	inv := &v1alpha1.KollectInventory{}
	src := map[string]any{
		"apiVersion": "kollect.dev/v1alpha1",
		"kind":       "KollectInventory",
		"metadata":   map[string]any{"name": "apps", "namespace": "team-a"},
		"spec": map[string]any{
			"snapshotSinkRefs": []any{"git-main", map[string]any{"name": "s3-archive", "maxExportBytes": int64(4096)}},
		},
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(src, inv); err != nil {
		t.Fatalf("from unstructured: %v", err)
	}
	var names []string
	for _, b := range inv.Spec.SnapshotSinkRefs {
		names = append(names, b.Name)
	}
	if diff := cmp.Diff([]string{"git-main", "s3-archive"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	back, err := runtime.DefaultUnstructuredConverter.ToUnstructured(inv)
	if err != nil {
		t.Fatalf("to unstructured: %v", err)
	}
	spec, _ := back["spec"].(map[string]any)
	if diff := cmp.Diff(src["spec"].(map[string]any)["snapshotSinkRefs"], spec["snapshotSinkRefs"]); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestSinkBindingDeepCopyKeepsForm(t *testing.T) {
	var inv v1alpha1.KollectInventorySpec
	if err := json.Unmarshal([]byte(`{"eventSinkRefs":[{"name":"kafka"},"nats"]}`), &inv); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(inv.DeepCopy().EventSinkRefs)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"name":"kafka"},"nats"]`; string(out) != want {
		t.Errorf("deep copy encoded %s, want %s", out, want)
	}
}
