package mongodb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
)

// docObject is the part of a manifest the doc test reads.
type docObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	StringData map[string]string `json:"stringData"`
	Spec       json.RawMessage   `json:"spec"`
}

// docExample returns the objects of the yaml block of docs/sinks/<page>.
func docExample(t *testing.T, page string) []docObject {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "sinks", page))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no yaml block", page)
	}
	var objs []docObject
	for _, doc := range strings.Split(string(m[1]), "\n---\n") {
		var o docObject
		if err := yaml.UnmarshalStrict([]byte(doc), &o); err != nil {
			t.Fatalf("decode %s example: %v", page, err)
		}
		if o.Kind == "KollectDatabaseSink" {
			// Every field of the example must be a field of the API.
			var sinkObj v1alpha1.KollectDatabaseSink
			if err := yaml.UnmarshalStrict([]byte(doc), &sinkObj); err != nil {
				t.Fatalf("decode %s example sink: %v", page, err)
			}
			if o.Spec, err = json.Marshal(sinkObj.Spec); err != nil {
				t.Fatal(err)
			}
		}
		objs = append(objs, o)
	}
	return objs
}

func TestDocsExample(t *testing.T) {
	srv := testenv.StartMongo(t)
	objs := docExample(t, "mongodb.md")
	creds := exporter.MapCredentials{}
	var cfg busv1.SinkConfig
	for _, o := range objs {
		switch o.Kind {
		case "Secret":
			// Only the server address changes: the test peer.
			creds[busv1.NamespacedName{Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}] = map[string][]byte{"uri": []byte(srv.URI)}
			if !strings.HasPrefix(o.StringData["uri"], "mongodb://") {
				t.Fatalf("the example Secret's uri is %q", o.StringData["uri"])
			}
		case "KollectDatabaseSink":
			cfg = busv1.SinkConfig{Family: busv1.FamilyDatabase, Type: "mongodb", Namespace: o.Metadata.Namespace,
				Name: o.Metadata.Name, Cluster: "prod-eu-1", Spec: o.Spec}
		}
	}
	s, err := testBackend().New(t.Context(), cfg, creds)
	if err != nil {
		t.Fatalf("new sink from the documented example: %v", err)
	}
	sinktest.Close(t, s)
	want := envelope(t, "prod-eu-1", inv, 1, podRow("web-0", map[string]any{"image": "nginx:1.27",
		"labels": map[string]any{"app.kubernetes.io/name": "web"}}))
	if err := s.Write(t.Context(), want); err != nil {
		t.Fatalf("write: %v", err)
	}
	r := newReader(t, srv.URI, "inventory", "kollect_rows")
	expect(t, r, "prod-eu-1", want)
}
