package gitlab

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
	"sigs.k8s.io/yaml"
)

// docExample returns the Secret and the sink of the example of
// docs/sinks/gitlab.md, decoded strictly.
func docExample(t *testing.T) (secret struct {
	Metadata   struct{ Name, Namespace string }
	StringData map[string]string `json:"stringData"`
}, ksnap v1alpha1.KollectSnapshotSink) {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "sinks", "gitlab.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/sinks/gitlab.md has no yaml block")
	}
	docs := strings.Split(string(m[1]), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("the example has %d objects, want a Secret and a sink", len(docs))
	}
	if err := yaml.Unmarshal([]byte(docs[0]), &secret); err != nil {
		t.Fatalf("decode the example Secret: %v", err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &ksnap); err != nil {
		t.Fatalf("decode the example sink: %v", err)
	}
	return secret, ksnap
}

func TestDocsExample(t *testing.T) {
	secret, ksnap := docExample(t)
	spec := ksnap.Spec
	gl := testenv.StartGitLab(t, testenv.GitLabOptions{Token: secret.StringData["token"]})
	gl.CreateProject(t, spec.GitLab.Project)
	spec.Endpoint = gl.URL // the only change: the test peer

	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "gitlab", Namespace: ksnap.Namespace,
		Name: ksnap.Name, Cluster: spec.Cluster, Spec: raw}
	creds := exporter.MapCredentials{{Namespace: secret.Metadata.Namespace, Name: secret.Metadata.Name}: {
		"token": []byte(secret.StringData["token"])}}
	s, err := Backend{Egress: allowLoopback}.New(t.Context(), cfg, creds)
	if err != nil {
		t.Fatalf("new sink from the documented example: %v", err)
	}
	sinktest.Close(t, s)
	if err := s.(sink.Checker).Check(t.Context()); err != nil {
		t.Fatalf("check: %v", err)
	}
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "web"}, 1, 1,
		[]busv1.Row{pod("team-a", "web-0", 1), pod("team-a", "web-1", 1)})
	if err != nil {
		t.Fatal(err)
	}
	write(t, s, sink.Snapshot{Envelope: env.Stamp(spec.Cluster, time.Now())})

	// What the page says lands in the project.
	want := []testenv.GitLabMergeRequest{{IID: 1, Title: "Inventory prod-eu-1/team-a/web (2 objects)", State: "opened",
		SourceBranch: "kollect/prod-eu-1/team-a/web", TargetBranch: "main"}}
	if d := cmp.Diff(want, gl.MergeRequests(t, spec.GitLab.Project)); d != "" {
		t.Fatalf("merge requests (-want +got):\n%s", d)
	}
	var paths []string
	for p := range withoutReadme(gl.Files(t, spec.GitLab.Project, "kollect/prod-eu-1/team-a/web")) {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	wantPaths := []string{".kollect/prod-eu-1/team-a/web.json", "prod-eu-1/team-a/pod/web-0.yaml", "prod-eu-1/team-a/pod/web-1.yaml"}
	if d := cmp.Diff(wantPaths, paths); d != "" {
		t.Fatalf("files of the inventory branch (-want +got):\n%s", d)
	}
}
