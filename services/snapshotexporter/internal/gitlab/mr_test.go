package gitlab

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

const invBranch = "kollect/conformance/team-a/web"

func TestMergeRequestLifecycle(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	project := p.newProject(t)
	spec := p.mrSpec(project)
	spec.GitLab.MergeRequest.TitleTemplate = "Kollect {cluster}/{namespace}/{name}: {itemCount} items"
	s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
	mr := func(iid int, title, state string) testenv.GitLabMergeRequest {
		return testenv.GitLabMergeRequest{IID: iid, Title: title, State: state, SourceBranch: invBranch, TargetBranch: "main"}
	}
	expect := func(step string, want ...testenv.GitLabMergeRequest) {
		t.Helper()
		if d := cmp.Diff(want, p.gl.MergeRequests(t, project)); d != "" {
			t.Fatalf("%s: merge requests (-want +got):\n%s", step, d)
		}
	}

	write(t, s, snap(t, 1, pods("team-a", 2, 1)...))
	expect("first export", mr(1, "Kollect conformance/team-a/web: 2 items", "opened"))
	if got := withoutReadme(p.gl.Files(t, project, "main")); len(got) != 0 {
		t.Fatalf("the target branch changed before any merge: %v", got)
	}

	write(t, s, snap(t, 2, pods("team-a", 3, 1)...))
	write(t, s, snap(t, 2, pods("team-a", 3, 1)...))
	expect("a second export and its repeat", mr(1, "Kollect conformance/team-a/web: 3 items", "opened"))
	if got := len(p.gl.Commits(t, project, invBranch)); got != 3 {
		t.Fatalf("the inventory branch has %d commits, want the initial one and two exports", got)
	}

	p.gl.MergeMergeRequest(t, project, 1)
	p.gl.DeleteBranch(t, project, invBranch)
	write(t, s, snap(t, 2, pods("team-a", 3, 1)...))
	if got := p.gl.Branches(t, project); !slices.Equal(got, []string{"main"}) {
		t.Fatalf("re-exporting merged content created branches: %q", got)
	}
	expect("a re-export of merged content", mr(1, "Kollect conformance/team-a/web: 3 items", "merged"))

	third := snap(t, 3, pods("team-a", 1, 3)...)
	write(t, s, third)
	expect("a change after the merge", mr(1, "Kollect conformance/team-a/web: 3 items", "merged"),
		mr(2, "Kollect conformance/team-a/web: 1 items", "opened"))
	got, found, err := p.newReader(t, project, spec, DefaultBranchPrefix).Read(t.Context(), "conformance", third.Envelope.Inventory)
	if err != nil || !found || got.Checksum != third.Envelope.Checksum {
		t.Fatalf("the recreated branch holds %v (found %v, err %v)", got, found, err)
	}
	if got := len(p.gl.Commits(t, project, invBranch)); got != 4 {
		t.Fatalf("the recreated branch has %d commits, want main's three and one export", got)
	}
}

func TestAMergeRequestIsOpenedForABranchThatMissedOne(t *testing.T) {
	// A commit that landed while opening its merge request failed: the
	// next write has nothing to commit but still proposes the branch.
	p := startPeer(t, testenv.GitLabOptions{})
	project := p.newProject(t)
	direct := p.spec(project)
	direct.GitLab.Branch = invBranch
	snp := snap(t, 1, pod("team-a", "api", 1))
	write(t, newSink(t, Backend{Egress: allowLoopback}, direct, p.creds), snp)

	s := newSink(t, Backend{Egress: allowLoopback}, p.mrSpec(project), p.creds)
	write(t, s, snp)
	write(t, s, snp)
	want := []testenv.GitLabMergeRequest{{IID: 1, Title: "Kollect inventory team-a/web", State: "opened",
		SourceBranch: invBranch, TargetBranch: "main"}}
	if d := cmp.Diff(want, p.gl.MergeRequests(t, project)); d != "" {
		t.Fatalf("merge requests (-want +got):\n%s", d)
	}
	if got := len(p.gl.Commits(t, project, invBranch)); got != 2 {
		t.Fatalf("the branch has %d commits, want 2", got)
	}
}

func TestMergeRequestCheckNeedsTheTargetBranch(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	spec := p.mrSpec(p.newProject(t))
	if err := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds).Check(t.Context()); err != nil {
		t.Fatalf("check: %v", err)
	}
	spec.GitLab.MergeRequest.TargetBranch = "release"
	s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
	if err := s.Check(t.Context()); !isPermanentNaming(err, `"release"`) {
		t.Fatalf("check with a missing target: %v, want a permanent error naming it", err)
	}
	if err := s.Write(t.Context(), snap(t, 1, pod("team-a", "api", 1))); !isPermanentNaming(err, `"release"`) {
		t.Fatalf("write with a missing target: %v, want a permanent error naming it", err)
	}
}

func TestInventoryBranchNames(t *testing.T) {
	s := &Sink{prefix: "exports/"}
	tests := []struct {
		name    string
		cluster string
		inv     busv1.NamespacedName
		want    string
	}{
		{"a namespaced inventory", "prod", busv1.NamespacedName{Namespace: "team-a", Name: "web"}, "exports/prod/team-a/web"},
		{"a cluster inventory", "prod", busv1.NamespacedName{Name: "nodes"}, "exports/prod/_cluster/nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.inventoryBranch(busv1.Envelope{Cluster: tt.cluster, Inventory: tt.inv}); got != tt.want {
				t.Fatalf("branch = %q, want %q", got, tt.want)
			}
		})
	}
}
