package loadtest

import "testing"

func TestCompareFindsEveryDifference(t *testing.T) {
	want := map[string]truthRow{
		"a": {obj: Object{Namespace: "n", Name: "a"}, seq: "1"},
		"b": {obj: Object{Namespace: "n", Name: "b"}, seq: "2"},
		"c": {obj: Object{Namespace: "n", Name: "c"}, seq: "3"},
	}
	if d := compare(want, map[string]string{"a": "1", "b": "2", "c": "3"}); !d.ok() {
		t.Errorf("equal rows differ: %v", d)
	}
	d := compare(want, map[string]string{"a": "1", "b": "old", "x": "9"})
	if d.Missing != 1 || d.Stale != 1 || d.Extra != 1 || d.ok() {
		t.Errorf("compare = %+v, want 1 missing (c), 1 stale (b), 1 extra (x)", d)
	}
}

func TestHistoryDefects(t *testing.T) {
	for _, tc := range []struct {
		revs      []uint64
		dup, back int
	}{
		{revs: []uint64{1, 2, 3, 7}},
		{revs: []uint64{1, 2, 2, 3}, dup: 1},
		{revs: []uint64{1, 5, 2, 6}, back: 1},
		{revs: []uint64{4, 4, 4}, dup: 2},
	} {
		dup, back := historyDefects(tc.revs)
		if dup != tc.dup || back != tc.back {
			t.Errorf("historyDefects(%v) = %d, %d; want %d, %d", tc.revs, dup, back, tc.dup, tc.back)
		}
	}
}

func TestFileRowReadsAPerResourceFile(t *testing.T) {
	body := "attributes:\n  app: svc-0001\n  seq: r3c17\n  team: team-01\ngroup: \"\"\nkind: ConfigMap\nname: cm-000001\n" +
		"namespace: faults-0000\ntargetName: configmaps\ntargetNamespace: kollect-load\nuid: 6f1c\nversion: v1\n"
	if uid, seq := fileRow(body); uid != "6f1c" || seq != "r3c17" {
		t.Errorf("fileRow = %q, %q; want 6f1c, r3c17", uid, seq)
	}
}
