package v1alpha1_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// declaredReasons returns the values of the Reason constants in reasons.go,
// by constant name.
func declaredReasons(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "reasons.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range vs.Names {
			if !strings.HasPrefix(name.Name, "Reason") {
				continue
			}
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok {
				t.Fatalf("%s is not a string literal", name.Name)
			}
			v, _ := strconv.Unquote(lit.Value)
			out[name.Name] = v
		}
		return true
	})
	return out
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestReasonsListsEveryDeclaredReasonOnce(t *testing.T) {
	var want []string
	for _, v := range declaredReasons(t) {
		want = append(want, v)
	}
	if diff := cmp.Diff(sortedCopy(want), sortedCopy(v1alpha1.Reasons())); diff != "" {
		t.Errorf("Reasons() differs from the constants in reasons.go (-declared +listed):\n%s", diff)
	}
}

// TestEveryReasonIsUsedOutsideTheAPI keeps dead reasons out: each constant
// is named by non-test code outside this package (where it is set, or
// passed on from a status report).
func TestEveryReasonIsUsedOutsideTheAPI(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	ref := regexp.MustCompile(`\bv1alpha1\.(Reason[A-Za-z]+)\b`)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || path == filepath.Join(root, "api", "v1alpha1") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range ref.FindAllSubmatch(b, -1) {
			used[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range declaredReasons(t) {
		if !used[name] {
			t.Errorf("%s is declared but no non-test code outside api/v1alpha1 names it: set it or delete it (and its docs)", name)
		}
	}
}

// TestTroubleshootingTableListsEveryReason compares the reasons of the
// table in docs/troubleshooting.md with Reasons().
func TestTroubleshootingTableListsEveryReason(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile("`([A-Za-z]+)`")
	var documented []string
	for line := range strings.Lines(string(b)) {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.Split(line, "|")[1]
		for _, m := range name.FindAllStringSubmatch(cell, -1) {
			documented = append(documented, m[1])
		}
	}
	if diff := cmp.Diff(sortedCopy(v1alpha1.Reasons()), sortedCopy(documented)); diff != "" {
		t.Errorf("docs/troubleshooting.md's table differs from v1alpha1.Reasons() (-code +docs):\n%s", diff)
	}
}
