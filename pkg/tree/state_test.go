package tree_test

import (
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"testing"

	"github.com/google/go-cmp/cmp"
	"kollect.dev/kollect/pkg/tree"
)

func TestStateRoundTrip(t *testing.T) {
	files, err := tree.Render(tree.Spec{Mode: tree.ModeSplit}, fixture(t, fixtureRows()))
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	st := tree.StateOf(fixture(t, fixtureRows()), files)
	if st.Revision != 7 || st.Generation != 3 || len(st.Files) != 7 {
		t.Fatalf("state %+v, want revision 7, generation 3 and 7 files", st)
	}
	data, err := st.Marshal()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	got, err := tree.ParseState(data)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if d := cmp.Diff(st, got); d != "" {
		t.Fatalf("round trip (-want +got):\n%s", d)
	}
	if _, err := tree.ParseState([]byte("{")); err == nil {
		t.Fatal("a truncated state parsed without error")
	}
	empty, _ := tree.State{}.Marshal()
	if want := "{\n  \"revision\": 0,\n  \"checksum\": \"\",\n  \"generation\": 0,\n  \"exportedAt\": \"0001-01-01T00:00:00Z\",\n  \"files\": []\n}\n"; string(empty) != want {
		t.Fatalf("empty state = %q, want %q", empty, want)
	}
}

func TestPlan(t *testing.T) {
	tree0 := map[string]string{"a.yaml": "a1", "b.yaml": "b1", "other.yaml": "not ours"}
	existing := func(p string) ([]byte, bool) {
		v, ok := tree0[p]
		return []byte(v), ok
	}
	prev := tree.State{Files: []string{"a.yaml", "b.yaml", "gone.yaml"}}
	tests := []struct {
		name       string
		existing   func(string) ([]byte, bool)
		files      []tree.File
		wantWrite  []string
		wantRemove []string
	}{
		{"unchanged files are neither written nor removed", existing,
			[]tree.File{{"a.yaml", []byte("a1")}, {"b.yaml", []byte("b1")}}, nil, nil},
		{"changed bytes are written", existing,
			[]tree.File{{"a.yaml", []byte("a2")}, {"b.yaml", []byte("b1")}}, []string{"a.yaml"}, nil},
		{"a new file is written", existing,
			[]tree.File{{"a.yaml", []byte("a1")}, {"b.yaml", []byte("b1")}, {"c.yaml", []byte("c1")}}, []string{"c.yaml"}, nil},
		{"a file of the previous state that left is removed, one already gone is not", existing,
			[]tree.File{{"a.yaml", []byte("a1")}}, nil, []string{"b.yaml"}},
		{"files the state does not list are never removed", existing,
			nil, nil, []string{"a.yaml", "b.yaml"}},
		{"a nil existing is an empty tree", nil,
			[]tree.File{{"a.yaml", []byte("a1")}}, []string{"a.yaml"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write, remove := tree.Plan(prev, tt.existing, tt.files)
			var gotWrite []string
			for _, f := range write {
				gotWrite = append(gotWrite, f.Path)
			}
			if d := cmp.Diff(tt.wantWrite, gotWrite); d != "" {
				t.Errorf("write (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantRemove, remove); d != "" {
				t.Errorf("remove (-want +got):\n%s", d)
			}
		})
	}
}

func TestUnchanged(t *testing.T) {
	s := tree.Spec{Mode: tree.ModeSplit, Format: tree.FormatJSON}
	env := fixture(t, fixtureRows())
	files, err := tree.Render(s, env)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	stored := map[string][]byte{}
	for _, f := range files {
		stored[f.Path] = f.Data
	}
	existing := func(p string) ([]byte, bool) { d, ok := stored[p]; return d, ok }
	prev := tree.StateOf(env, files)

	later := env.Stamp("prod", exportedAt.Add(time.Hour))
	later.Revision++
	changedRows := fixture(t, fixtureRows()[1:])
	changedGen := env
	changedGen.Generation++
	tests := []struct {
		name string
		spec tree.Spec
		env  busv1.Envelope
		want bool
	}{
		{"a later export of the same content is unchanged", s, later, true},
		{"other rows are a change", s, changedRows, false},
		{"another generation is a change", s, changedGen, false},
		{"another content of the same rows is a change", tree.Spec{Mode: tree.ModeSplit, Format: tree.FormatJSON, Content: tree.ContentAttributes}, later, false},
		{"another layout of the same rows is a change", tree.Spec{Format: tree.FormatJSON}, later, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tree.Unchanged(prev, tt.spec, tt.env, existing)
			if err != nil {
				t.Fatalf("Unchanged: %v", err)
			}
			if got != tt.want {
				t.Fatalf("Unchanged = %v, want %v", got, tt.want)
			}
		})
	}
}
