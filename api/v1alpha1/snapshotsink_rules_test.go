package v1alpha1_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kollect.dev/kollect/api/v1alpha1/internal/snapshotcel"
)

// TestSnapshotSinkRulesAreGenerated fails when the XValidation markers of
// KollectSnapshotSinkSpec differ from what internal/snapshotcel generates
// (run make generate), and when a marker of the package outside the
// generated lines pastes the effective-type or endpoint expression, which
// is written once, in snapshotcel.
func TestSnapshotSinkRulesAreGenerated(t *testing.T) {
	src, err := os.ReadFile("snapshotsink_types.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := snapshotcel.Rewrite(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, want) {
		t.Errorf("the XValidation markers of KollectSnapshotSinkSpec in snapshotsink_types.go are stale: "+
			"they are generated from internal/snapshotcel; run make generate (go generate ./api/v1alpha1)\n%s",
			firstDifference(string(want), string(src)))
	}

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if name == "snapshotsink_types.go" {
			begin := strings.Index(text, snapshotcel.Begin)
			end := strings.Index(text, snapshotcel.End)
			text = text[:begin] + text[end:]
		}
		for i, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "+kubebuilder:validation:XValidation") &&
				(strings.Contains(line, "has(self.type) ? self.type") || strings.Contains(line, "has(self.endpoint) ? self.endpoint")) {
				t.Errorf("%s:%d: a hand-written marker infers the sink's type or endpoint; add the rule to internal/snapshotcel, "+
					"whose {type} and {endpoint} hold the expressions once", name, i+1)
			}
		}
	}
}

// firstDifference returns the first line where want and got differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  want " + w[i] + "\n  got  " + g[i]
		}
	}
	return "the files differ in length"
}
