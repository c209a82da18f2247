package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFolderEdgeCases(t *testing.T) {
	tests := []struct {
		name, file, in string
		wantOut        string // "" means unchanged
		wantKept       string
	}{
		{"documents without established spellings keep their bytes", "a.yaml",
			"# head\napiVersion: kollect.dev/v1alpha1\nkind: KollectTarget\nmetadata:   {name: t, namespace: a}\nspec:\n    profileRef: {name: p}\n---   \n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: profileRef}\n",
			"", ""},
		{"only the document with a spelling is re-encoded", "a.yaml",
			"kind: KollectTarget\napiVersion: kollect.dev/v1alpha1\nmetadata:   {name: t}\nspec: {profileRef: p}\n---\napiVersion: v1\nkind:    ConfigMap\n",
			"kind: KollectTarget\napiVersion: kollect.dev/v1alpha1\nmetadata: {name: t}\nspec: {profileRef: {name: p}}\n---\napiVersion: v1\nkind:    ConfigMap\n", ""},
		{"objects of other groups are never rewritten", "a.yaml",
			"apiVersion: example.com/v1\nkind: KollectTarget\nmetadata: {name: t}\nspec: {profileRef: p}\n", "", ""},
		{"JSON files are reported, not rewritten", "a.json",
			`{"apiVersion": "kollect.dev/v1alpha1", "kind": "KollectTarget", "metadata": {"name": "t"}, "spec": {"profileRef": "p"}}`, "", "JSON files are not rewritten"},
		{"an objectStore block does not tell s3 from gcs", "a.yaml",
			"apiVersion: kollect.dev/v1alpha1\nkind: KollectSnapshotSink\nmetadata: {name: s, namespace: a}\nspec:\n  objectStore: {bucket: b}\n",
			"", "serves both s3 and gcs"},
		{"a bigquery.secretRef next to spec.secretRef is kept", "a.yaml",
			"apiVersion: kollect.dev/v1alpha1\nkind: KollectDatabaseSink\nmetadata: {name: s, namespace: a}\nspec:\n  type: bigquery\n  secretRef: {name: x}\n  bigquery: {secretRef: {name: y}}\n",
			"", "keep one of them"},
		{"a ConnectionTest naming a sink outside the folder is kept", "a.yaml",
			"apiVersion: kollect.dev/v1alpha1\nkind: KollectConnectionTest\nmetadata: {name: c, namespace: a}\nspec: {sinkRef: nowhere}\n",
			"", "family cannot be told"},
		{"a databaseRef of a sink without namespace keeps its namespace", "a.yaml",
			"apiVersion: kollect.dev/v1alpha1\nkind: KollectDatabaseSink\nmetadata: {name: s}\nspec:\n  postgres:\n    databaseRef: {name: d, namespace: a, key: dsn}\n",
			"", "cannot be compared"},
		{"a Scope list already set gets the resolved names appended", "a.yaml",
			"apiVersion: kollect.dev/v1alpha1\nkind: KollectScope\nmetadata: {name: s, namespace: a}\nspec:\n  eventSinkRefs: [e1]\n  sinkRefs: [e2]\n---\napiVersion: kollect.dev/v1alpha1\nkind: KollectEventSink\nmetadata: {name: e2, namespace: a}\n",
			"apiVersion: kollect.dev/v1alpha1\nkind: KollectScope\nmetadata: {name: s, namespace: a}\nspec:\n  eventSinkRefs: [e1, e2]\n  snapshotSinkRefs: []\n  databaseSinkRefs: []\n---\napiVersion: kollect.dev/v1alpha1\nkind: KollectEventSink\nmetadata: {name: e2, namespace: a}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, tt.file)
			if err := os.WriteFile(p, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := Folder(dir, os.ReadFile)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.wantOut
			if want == "" {
				want = tt.in
			}
			if got := string(files[0].New); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			var kept []string
			for _, l := range files[0].Findings {
				kept = append(kept, l.Kept)
			}
			if tt.wantKept != "" && !strings.Contains(strings.Join(kept, "|"), tt.wantKept) {
				t.Errorf("kept reasons %q do not say %q", kept, tt.wantKept)
			}
		})
	}
}

func TestFolderRefusesAFileThatDoesNotParse(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("a: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Folder(dir, os.ReadFile); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Fatalf("err = %v, want one naming bad.yaml", err)
	}
}
