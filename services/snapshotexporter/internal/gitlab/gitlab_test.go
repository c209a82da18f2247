package gitlab

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/testenv/golden"
	"kollect.dev/kollect/pkg/tree"
)

// withoutReadme drops the README.md every fake project starts with.
func withoutReadme(files map[string]string) map[string]string {
	delete(files, "README.md")
	return files
}

func TestCommittedFilesEqualTheRenderedTree(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	project := p.newProject(t)
	spec := p.spec(project)
	spec.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
	s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
	snp := snap(t, 1, pod("team-a", "api", 1), pod("team-b", "db", 2), pod("team-b", "cache", 3))
	write(t, s, snp)

	got := withoutReadme(p.gl.Files(t, project, "main"))
	ts, _ := tree.SpecFor(spec)
	files, err := tree.Render(ts, snp.Envelope)
	if err != nil {
		t.Fatal(err)
	}
	state, _ := tree.StateOf(snp.Envelope, files).Marshal()
	want := map[string]string{tree.StatePath("conformance", snp.Envelope.Inventory): string(state)}
	for _, f := range files {
		want[f.Path] = string(f.Data)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("committed files (-rendered +committed):\n%s", d)
	}
	golden.Check(t, filepath.Join("testdata", "perresource-yaml.golden"), listing(got))
}

// listing lists files path by path, for a golden file.
func listing(files map[string]string) []byte {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(&b, "=== %s\n%s", p, files[p])
	}
	return []byte(b.String())
}

func TestCommitMessageAuthorAndTrailers(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	project := p.newProject(t)
	s := newSink(t, Backend{Egress: allowLoopback}, p.spec(project), p.creds)
	snp := snap(t, 7, pod("team-a", "api", 1), pod("team-a", "web", 2))
	write(t, s, snp)
	sum := snp.Envelope.Checksum
	want := testenv.GitLabCommit{
		Title: "chore(conformance/team-a/web): export 2 items @ " + sum[:12],
		Message: "chore(conformance/team-a/web): export 2 items @ " + sum[:12] + "\n\n" +
			"Kollect-Revision: 7\nKollect-Checksum: " + sum,
		AuthorName: "kollect", AuthorEmail: "kollect@kollect.dev",
	}
	commits := p.gl.Commits(t, project, "main")
	if len(commits) != 2 {
		t.Fatalf("%d commits, want the initial one and one export", len(commits))
	}
	if d := cmp.Diff(want, commits[0]); d != "" {
		t.Fatalf("export commit (-want +got):\n%s", d)
	}
}

func TestNoCommitWhenNothingChanged(t *testing.T) {
	tests := []struct {
		name   string
		format string
		layout *v1alpha1.GitLayout
	}{
		{name: "a json document, whose envelope carries exportedAt", format: "json"},
		{name: "one yaml file per row", layout: &v1alpha1.GitLayout{Mode: "perResource"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, testenv.GitLabOptions{})
			project := p.newProject(t)
			spec := p.spec(project)
			spec.Layout = tt.layout
			if tt.format != "" {
				spec.Serialization = &v1alpha1.SnapshotSerialization{Format: tt.format}
			}
			s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
			rows := pods("team-a", 3, 1)
			write(t, s, snap(t, 1, rows...))
			again := snap(t, 1, rows...)
			again.Envelope.ExportedAt = again.Envelope.ExportedAt.Add(60 * 60e9)
			write(t, s, again)
			write(t, s, snap(t, 2, rows...)) // the periodic re-export: a new revision, the same content
			if got := len(p.gl.Commits(t, project, "main")); got != 2 {
				t.Fatalf("%d commits after three writes of one content, want the initial one and one export", got)
			}
			write(t, s, snap(t, 3, pods("team-a", 2, 2)...))
			if got := len(p.gl.Commits(t, project, "main")); got != 3 {
				t.Fatalf("%d commits after a change, want 3", got)
			}
		})
	}
}

func TestDeletedInventoryIsRemovedInOneCommit(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	project := p.newProject(t)
	spec := p.spec(project)
	spec.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
	s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
	write(t, s, snap(t, 1, pods("team-a", 3, 1)...))
	p.gl.PutFile(t, project, "main", "notes/keep.md", "not Kollect's")
	del := snap(t, 2)
	del.Deleted = true
	write(t, s, del)
	want := map[string]string{"notes/keep.md": "not Kollect's"}
	if d := cmp.Diff(want, withoutReadme(p.gl.Files(t, project, "main"))); d != "" {
		t.Fatalf("files after deletion (-want +got):\n%s", d)
	}
	commits := p.gl.Commits(t, project, "main")
	if got, want := commits[0].Title, "chore(conformance/team-a/web): remove inventory"; got != want || len(commits) != 4 {
		t.Fatalf("%d commits, newest %q, want 4 and %q", len(commits), got, want)
	}
	write(t, s, del)
	if got := len(p.gl.Commits(t, project, "main")); got != 4 {
		t.Fatalf("deleting again committed: %d commits", got)
	}
}

func TestReplayWritesAnOlderRevision(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	project := p.newProject(t)
	spec := p.spec(project)
	s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
	write(t, s, snap(t, 5, pods("team-a", 2, 5)...))
	old := snap(t, 3, pods("team-a", 1, 3)...)
	old.Replay = true
	write(t, s, old)
	got, found, err := p.newReader(t, project, spec, "").Read(t.Context(), "conformance", old.Envelope.Inventory)
	if err != nil || !found || got.Revision != 3 || len(got.Rows) != 1 {
		t.Fatalf("after a replay of revision 3 the branch holds %v (found %v, err %v)", got, found, err)
	}
}

func TestDirectModeBranches(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	t.Run("a missing branch is created from the default branch", func(t *testing.T) {
		project := p.newProject(t)
		spec := p.spec(project)
		spec.GitLab.Branch = "exports/inventory"
		s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
		if err := s.Check(t.Context()); err != nil {
			t.Fatalf("check before the branch exists: %v", err)
		}
		write(t, s, snap(t, 1, pod("team-a", "api", 1)))
		if got := p.gl.Branches(t, project); !slices.Equal(got, []string{"exports/inventory", "main"}) {
			t.Fatalf("branches = %q", got)
		}
		if got := len(p.gl.Commits(t, project, "main")); got != 1 {
			t.Fatalf("the default branch got %d commits, want only its initial one", got)
		}
		if got := withoutReadme(p.gl.Files(t, project, "exports/inventory")); len(got) != 2 {
			t.Fatalf("branch files = %v, want the document and the state", got)
		}
	})
	t.Run("with provisioning existing a missing branch is a permanent error", func(t *testing.T) {
		project := p.newProject(t)
		spec := p.spec(project)
		spec.GitLab.Branch = "exports"
		spec.Provisioning = &v1alpha1.Provisioning{Mode: v1alpha1.ProvisionExisting}
		s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
		for name, err := range map[string]error{"write": s.Write(t.Context(), snap(t, 1)), "check": s.Check(t.Context())} {
			if !isPermanentNaming(err, `"exports"`) {
				t.Fatalf("%s: %v, want a permanent error naming the branch", name, err)
			}
		}
	})
}

func TestRowsSpreadOverManyFoldersArePlannedFromOneRecursiveListing(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	project := p.newProject(t)
	spec := p.spec(project)
	spec.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
	s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
	var rows []busv1.Row
	for i := range maxListings + 4 {
		rows = append(rows, pods(fmt.Sprintf("ns-%02d", i), 2, 1)...)
	}
	write(t, s, snap(t, 1, rows...))
	// Change one row per namespace, drop one, keep the rest.
	var next []busv1.Row
	for i, r := range rows {
		switch {
		case i == 0:
			continue
		case i%2 == 0:
			r.Attributes = map[string]any{"v": float64(2)}
		}
		next = append(next, r)
	}
	second := snap(t, 2, next...)
	p.gl.Requests()
	write(t, s, second)
	var listings, reads []string
	for _, r := range p.gl.Requests() {
		switch {
		case strings.Contains(r, "/repository/tree"):
			listings = append(listings, r)
		case strings.Contains(r, "/raw"):
			reads = append(reads, r)
		}
	}
	if len(listings) != 1 || !strings.Contains(listings[0], "recursive=true") {
		t.Fatalf("listings: %q, want one recursive listing", listings)
	}
	if len(reads) != 1 || !strings.Contains(reads[0], "/.kollect/conformance/team-a/web.json/raw") {
		t.Fatalf("file reads: %q, want only the state", reads)
	}
	write(t, s, snap(t, 3, next...))
	got, _, err := p.newReader(t, project, spec, "").Read(t.Context(), "conformance", second.Envelope.Inventory)
	if err != nil || got.Checksum != second.Envelope.Checksum || len(got.Rows) != len(next) {
		t.Fatalf("the branch holds %v (%v), want revision 2 with %d rows", got, err, len(next))
	}
	if n := len(withoutReadme(p.gl.Files(t, project, "main"))); n != len(next)+1 {
		t.Fatalf("%d files, want %d rows and the state", n, len(next))
	}
	if n := len(p.gl.Commits(t, project, "main")); n != 3 {
		t.Fatalf("%d commits, want the initial one and two exports", n)
	}
}

func TestAClusterInventory(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	project := p.newProject(t)
	s := newSink(t, Backend{Egress: allowLoopback}, p.spec(project), p.creds)
	env, err := snapshot.Envelope(busv1.NamespacedName{Name: "nodes"}, 1, 1, []busv1.Row{{TargetName: "nodes", Name: "node-a",
		UID: "n1", Version: "v1", Kind: "Node", Attributes: map[string]any{}}})
	if err != nil {
		t.Fatal(err)
	}
	write(t, s, sink.Snapshot{Envelope: env.Stamp("conformance", exportedAt)})
	if got, want := p.gl.Commits(t, project, "main")[0].Title, "chore(conformance/_cluster/nodes): export 1 items @ "+env.Checksum[:12]; got != want {
		t.Fatalf("subject = %q, want %q", got, want)
	}
	if _, ok := p.gl.Files(t, project, "main")[".kollect/conformance/_cluster/nodes.json"]; !ok {
		t.Fatalf("no state at .kollect/conformance/_cluster/nodes.json: %v", p.gl.Files(t, project, "main"))
	}
}
