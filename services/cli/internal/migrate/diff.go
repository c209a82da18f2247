package migrate

import (
	"github.com/pmezard/go-difflib/difflib"
)

// Diff is the unified diff from f's content to its canonical content,
// empty when the file does not change.
func (f File) Diff() (string, error) {
	if !f.Changed() {
		return "", nil
	}
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(f.Old)),
		B:        difflib.SplitLines(string(f.New)),
		FromFile: "a/" + f.Path,
		ToFile:   "b/" + f.Path,
		Context:  3,
	})
}
