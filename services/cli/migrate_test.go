package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/testenv/golden"
	"kollect.dev/kollect/services/cli/internal/migrate"
)

const established = "testdata/established"

func TestMigrateShowsTheDiffOfEveryEstablishedSpelling(t *testing.T) {
	code, stdout, stderr := run(t, "migrate", established)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (changes shown)\nstderr: %s", code, stderr)
	}
	golden.Check(t, filepath.Join("testdata", "migrate.diff"+".golden"), []byte(stdout))
	golden.Check(t, filepath.Join("testdata", "migrate.stderr"+".golden"), []byte(stderr))
}

func TestMigrateRewritesEachFixtureToItsGolden(t *testing.T) {
	files, err := migrate.Folder(established, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 7 {
		t.Fatalf("found %d fixture files, want at least 7", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f.Path), func(t *testing.T) {
			golden.Check(t, filepath.Join("testdata", filepath.Join("migrated", filepath.Base(f.Path))+".golden"), f.New)
		})
	}
}

// Running migrate on its own output changes nothing: on the fixtures here
// and on the API package's fixtures of established spellings when present.
func TestMigrateWriteIsIdempotent(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{established}
	if api := filepath.Join(root, "api", "v1alpha1", "testdata", "established"); isDir(api) {
		dirs = append(dirs, api)
	}
	for _, src := range dirs {
		t.Run(filepath.Base(filepath.Dir(src))+"/"+filepath.Base(src), func(t *testing.T) {
			dir := copyDir(t, src)
			if code, _, stderr := run(t, "migrate", "--write", dir); code != 0 {
				t.Fatalf("--write: exit %d, stderr %s", code, stderr)
			}
			first := readDir(t, dir)
			code, stdout, stderr := run(t, "migrate", dir)
			if code != 0 || stdout != "" || !strings.Contains(stderr, "nothing to migrate") {
				t.Fatalf("second run: exit %d, stdout %q, stderr %s; want nothing to migrate", code, stdout, stderr)
			}
			if code, _, _ := run(t, "migrate", "--write", dir); code != 0 {
				t.Fatalf("second --write: exit %d", code)
			}
			for name, b := range readDir(t, dir) {
				if !bytes.Equal(b, first[name]) {
					t.Errorf("%s changed on the second --write", name)
				}
			}
		})
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func TestMigrateLeavesTheDocumentedExamplesUnchanged(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	assertCanonical(t, filepath.Join(root, "docs", "examples"))
}

var yamlBlock = regexp.MustCompile("(?s)```ya?ml\n(.*?)```")

// Every ```yaml block of the docs holding a kollect.dev object is canonical,
// except in migrating.md, which shows the established spellings.
func TestMigrateLeavesTheYAMLBlocksOfTheDocsUnchanged(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	n := 0
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".md" || d.Name() == "migrating.md" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, m := range yamlBlock.FindAllSubmatch(b, -1) {
			if !bytes.Contains(m[1], []byte("kollect.dev/v1alpha1")) {
				continue
			}
			rel, _ := filepath.Rel(root, p)
			name := strings.ReplaceAll(rel, string(filepath.Separator), "_") + "_" + string(rune('a'+i%26)) + ".yaml"
			n++
			if err := os.WriteFile(filepath.Join(dir, name), m[1], 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Fatalf("found %d kollect.dev YAML blocks in docs/, want at least 5", n)
	}
	assertCanonical(t, dir)
}

// assertCanonical runs migrate on dir and wants no finding and no change.
func assertCanonical(t *testing.T, dir string) {
	t.Helper()
	files, err := migrate.Folder(dir, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, l := range f.Findings {
			t.Errorf("%s", l)
		}
		if f.Changed() {
			t.Errorf("%s would be rewritten", f.Path)
		}
	}
	if code, stdout, stderr := run(t, "migrate", dir); code != 0 || stdout != "" {
		t.Errorf("migrate %s: exit %d, stdout %q, stderr %s", dir, code, stdout, stderr)
	}
}

func TestValidateWarnsOnEstablishedSpellings(t *testing.T) {
	code, stdout, _ := run(t, "validate", established)
	files, err := migrate.Folder(established, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	warnings := 0
	for _, f := range files {
		for _, l := range f.Findings {
			warnings++
			if !strings.Contains(stdout, l.Source+": warning: "+l.Object+": "+l.Field) {
				t.Errorf("no warning for %s %s:\n%s", l.Source, l.Field, stdout)
			}
			if !strings.Contains(l.Message(), "canonical spelling is") {
				t.Errorf("warning %q does not name the canonical spelling", l.Message())
			}
		}
	}
	if warnings < 8 {
		t.Errorf("%d warnings, want one per established spelling of the fixtures (at least 8)", warnings)
	}
	// Warnings never decide the exit status: 2 exactly when an error is shown.
	if hasError := strings.Contains(stdout, ": error: "); hasError != (code == 2) {
		t.Errorf("exit %d with errors shown = %v:\n%s", code, hasError, stdout)
	}
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range readDir(t, src) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func TestMigrateExitsTwoOnAFileThatDoesNotParse(t *testing.T) {
	dir := writeConfig(t, map[string]string{"bad.yaml": "a: [\n"})
	if code, _, stderr := run(t, "migrate", dir); code != 2 || !strings.Contains(stderr, "bad.yaml") {
		t.Errorf("exit %d, stderr %s; want 2 naming bad.yaml", code, stderr)
	}
}
