package gitlab

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

func TestDocsExample(t *testing.T) {
	objs := sinktest.DocObjects[v1alpha1.KollectSnapshotSinkSpec](t, "docs/sinks/gitlab.md", "KollectSnapshotSink")
	if len(objs) != 2 {
		t.Fatalf("the example has %d objects, want a Secret and a sink", len(objs))
	}
	secret, ksnap := sinktest.OneDoc(t, objs, "Secret"), sinktest.OneDoc(t, objs, "KollectSnapshotSink")
	spec := ksnap.Spec
	gl := testenv.StartGitLab(t, testenv.GitLabOptions{Token: secret.StringData["token"]})
	gl.CreateProject(t, spec.GitLab.Project)
	spec.Endpoint = gl.URL // the only change: the test peer

	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "gitlab", Namespace: ksnap.Metadata.Namespace,
		Name: ksnap.Metadata.Name, Cluster: spec.Cluster, Spec: raw}
	creds := backend.MapCredentials{{Namespace: secret.Metadata.Namespace, Name: secret.Metadata.Name}: {
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
