package postgres

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/testenv"
)

// TestHistoryDDLIsDocumented keeps the DDL of docs/sinks/postgres.md
// "History" equal to what mode ensure runs.
func TestHistoryDDLIsDocumented(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, "docs", "sinks", "postgres.md"))
	if err != nil {
		t.Fatal(err)
	}
	tb := newTable("public", "kollect_rows", true)
	want := strings.Join(append(tb.createHistory(), tb.createRevisions()), ";\n") + ";\n"
	doc := string(md)
	i := strings.Index(doc, "\n## History\n")
	j := strings.Index(doc[max(i, 0):], "```sql\n")
	if i < 0 || j < 0 {
		t.Fatal(`docs/sinks/postgres.md has no sql block under "## History"`)
	}
	block := doc[i+j+len("```sql\n"):]
	block = block[:strings.Index(block, "```")]
	if d := cmp.Diff(want, block); d != "" {
		t.Errorf("the documented history DDL differs from mode ensure's (-ensure +doc):\n%s", d)
	}
}
