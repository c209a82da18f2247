package gitlab

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
)

// TestADeltaCommitsOnlyTheFilesOfItsRows writes 30 rows, then a delta
// changing one row, removing one and adding one: the commit's changes are
// those files and the State, and the branch equals the snapshot. (A
// sharded State needs over 1,024 files, which the fake GitLab API takes
// minutes to hold; the git sink's tests cover shards.)
func TestADeltaCommitsOnlyTheFilesOfItsRows(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	project := p.newProject(t)
	spec := p.spec(project)
	spec.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
	s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
	rows := pods("team-a", 30, 1)
	base := snap(t, 1, rows...)
	write(t, s, base)
	before := withoutReadme(p.gl.Files(t, project, "main"))

	changedRow, added, removed := pod("team-a", rows[7].Name, 2), pod("team-a", "new", 2), rows[10]
	next := slices.Clone(rows)
	next[7] = changedRow
	next = slices.Delete(next, 10, 11)
	next = append(next, added)
	second := snap(t, 2, slices.Clone(next)...)
	loads := 0
	delivered := second
	delivered.Envelope.Items = nil
	delivered.Delta = &busv1.Delta{BaseRevision: 1, BaseChecksum: base.Envelope.Checksum,
		Upserts: []busv1.Row{changedRow, added}, Deletes: []busv1.RowKey{removed.Key()}}
	delivered.Load = func(context.Context) (busv1.Envelope, error) {
		loads++
		return second.Envelope, nil
	}
	if err := s.WriteDelta(t.Context(), delivered); err != nil {
		t.Fatal(err)
	}
	if loads != 0 {
		t.Errorf("the delta loaded the full snapshot %d times", loads)
	}
	after := withoutReadme(p.gl.Files(t, project, "main"))
	var changed, shards []string
	for path := range mergeKeys(before, after) {
		if before[path] == after[path] {
			continue
		}
		switch {
		case strings.Contains(path, ".files/"):
			shards = append(shards, path)
		case path != tree.StatePath("conformance", base.Envelope.Inventory):
			changed = append(changed, path)
		}
	}
	slices.Sort(changed)
	want := []string{"conformance/team-a/pod/new.yaml", "conformance/team-a/pod/pod-00007.yaml", "conformance/team-a/pod/pod-00010.yaml"}
	if d := cmp.Diff(want, changed); d != "" {
		t.Errorf("row files the delta changed (-want +got):\n%s", d)
	}
	if len(shards) != 0 {
		t.Errorf("the delta changed shards %v of an inline State", shards)
	}
	got, found, err := p.newReader(t, project, spec, "").Read(t.Context(), "conformance", base.Envelope.Inventory)
	if err != nil || !found || got.Revision != 2 || got.Checksum != second.Envelope.Checksum || len(got.Rows) != len(next) {
		t.Fatalf("the branch holds revision %d with %d rows (%v, found %v), want 2 with %d", got.Revision, len(got.Rows), err, found, len(next))
	}
}

func mergeKeys(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
