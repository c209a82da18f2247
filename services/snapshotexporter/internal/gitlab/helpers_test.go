package gitlab

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
	"kollect.dev/kollect/pkg/tree/treetest"
)

// allowLoopback is the policy of tests: the fake listens on loopback.
var allowLoopback = egress.Policy{AllowPrivate: true}

// token is the access token the fake accepts.
const token = "glpat-kollect-test"

// projectCount names a fresh project per sink.
var projectCount atomic.Int64

// peer is a fake GitLab server and the Secret holding its token.
type peer struct {
	gl    *testenv.GitLab
	creds backend.MapCredentials
}

// startPeer starts a fake GitLab; the Secret team-a/gitlab holds its token.
func startPeer(t testing.TB, opts testenv.GitLabOptions) *peer {
	t.Helper()
	opts.Token = token
	return &peer{gl: testenv.StartGitLab(t, opts),
		creds: backend.MapCredentials{{Namespace: "team-a", Name: "gitlab"}: {"token": []byte(token)}}}
}

// newProject creates a project and returns its path.
func (p *peer) newProject(t testing.TB) string {
	t.Helper()
	path := fmt.Sprintf("team/inventory-%d", projectCount.Add(1))
	p.gl.CreateProject(t, path)
	return path
}

// spec is a gitlab sink spec for project, using the peer's Secret.
func (p *peer) spec(project string) v1alpha1.KollectSnapshotSinkSpec {
	return v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGitLab, Endpoint: p.gl.URL,
		SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: "gitlab"}},
		GitLab:     &v1alpha1.GitLabSink{Project: project}}
}

// mrSpec is spec in merge_request mode.
func (p *peer) mrSpec(project string) v1alpha1.KollectSnapshotSinkSpec {
	s := p.spec(project)
	s.GitLab.MergeRequest = &v1alpha1.GitLabMergeRequest{Mode: ModeMergeRequest}
	return s
}

// newSink creates a sink of b for spec with creds; the test closes it.
func newSink(t testing.TB, b Backend, spec v1alpha1.KollectSnapshotSinkSpec, creds backend.Credentials) *Sink {
	t.Helper()
	s, err := b.New(context.Background(), cfgFor(t, spec), creds)
	if err != nil {
		t.Fatalf("new gitlab sink: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s.(*Sink)
}

// cfgFor is the SinkConfig of spec for sink team-a/gitlab.
func cfgFor(t testing.TB, spec v1alpha1.KollectSnapshotSinkSpec) busv1.SinkConfig {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatalf("encode spec: %v", err)
	}
	return busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "gitlab", Namespace: "team-a", Name: "gitlab",
		Cluster: "conformance", Spec: raw}
}

// reader reads what a sink stored straight from the fake's bare
// repository with git, never through the sink.
type reader struct {
	t       testing.TB
	gl      *testenv.GitLab
	project string
	branch  func(cluster string, inv busv1.NamespacedName) string
	spec    tree.Spec
}

// newReader reads branch (main when empty) of project; mrPrefix set reads
// the inventory branch of merge_request mode instead.
func (p *peer) newReader(t testing.TB, project string, spec v1alpha1.KollectSnapshotSinkSpec, mrPrefix string) *reader {
	t.Helper()
	ts, err := tree.SpecFor(spec)
	if err != nil {
		t.Fatalf("tree spec: %v", err)
	}
	r := &reader{t: t, gl: p.gl, project: project, spec: ts,
		branch: func(string, busv1.NamespacedName) string { return "main" }}
	if mrPrefix != "" {
		r.branch = func(cluster string, inv busv1.NamespacedName) string {
			return mrPrefix + cluster + "/" + inv.Namespace + "/" + inv.Name
		}
	}
	return r
}

// Read implements sinktest.Reader through treetest.Reader, on the files
// of the inventory's branch.
func (r *reader) Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	return treetest.Reader{Spec: r.spec, Open: func(_ context.Context, cluster string, inv busv1.NamespacedName) (treetest.ReadFile, error) {
		ref := r.branch(cluster, inv)
		return func(p string) ([]byte, bool, error) { return r.gl.ReadFile(r.project, ref, p) }, nil
	}}.Read(ctx, cluster, inv)
}

// pod is a row of a Pod named name in namespace ns with attribute v.
func pod(ns, name string, v int) busv1.Row {
	return busv1.Row{TargetNamespace: ns, TargetName: "pods", Namespace: ns, Name: name, UID: "uid-" + ns + "-" + name,
		Version: "v1", Kind: "Pod", Attributes: map[string]any{"v": float64(v), "labels": map[string]any{"app": name}}}
}

// pods returns n Pod rows in ns, attribute v on each.
func pods(ns string, n, v int) []busv1.Row {
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = pod(ns, fmt.Sprintf("pod-%05d", i), v)
	}
	return rows
}

// exportedAt is the export time of the snapshots snap builds.
var exportedAt = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// snap is the snapshot of inventory team-a/web at revision, stamped for
// the cluster "conformance" at exportedAt plus revision minutes.
func snap(t testing.TB, revision uint64, rows ...busv1.Row) sink.Snapshot {
	t.Helper()
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "web"}, revision, 1, rows)
	if err != nil {
		t.Fatalf("build envelope: %v", err)
	}
	return sink.Snapshot{Envelope: env.Stamp("conformance", exportedAt.Add(time.Duration(revision)*time.Minute))}
}

// write writes snap to s and fails the test on error.
func write(t testing.TB, s sink.Sink, snap sink.Snapshot) {
	t.Helper()
	if err := s.Write(context.Background(), snap); err != nil {
		t.Fatalf("write revision %d: %v", snap.Envelope.Revision, err)
	}
}
