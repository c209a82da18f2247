// Package hygiene holds the test of check.sh, the make lint step that keeps
// built executables and large files out of git.
package hygiene

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a git repository in a temporary folder holding files and
// tracks them.
func repo(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func check(dir string) (string, error) {
	out, err := exec.Command("bash", "check.sh", dir).CombinedOutput()
	return string(out), err
}

func TestCheckRefusesTrackedExecutablesAndLargeFiles(t *testing.T) {
	elf := append([]byte{0x7f, 'E', 'L', 'F'}, make([]byte, 60)...)
	for name, tc := range map[string]struct {
		files map[string][]byte
		want  string
	}{
		"an ELF binary":        {map[string][]byte{"kollect": elf, "main.go": []byte("package main\n")}, "tracked executable: kollect"},
		"a Mach-O binary":      {map[string][]byte{"tool": {0xcf, 0xfa, 0xed, 0xfe, 0, 0}}, "tracked executable: tool"},
		"a file over 5 MiB":    {map[string][]byte{"dump.json": make([]byte, 5*1024*1024+1)}, "tracked file over 5 MiB: dump.json"},
		"a WebAssembly module": {map[string][]byte{"x.wasm": {0, 'a', 's', 'm', 1, 0, 0, 0}}, "tracked executable: x.wasm"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := check(repo(t, tc.files))
			if err == nil || !strings.Contains(out, tc.want) {
				t.Fatalf("check.sh = %v, %q; want a failure naming %q", err, out, tc.want)
			}
		})
	}
}

func TestCheckAcceptsSourcesAndScripts(t *testing.T) {
	dir := repo(t, map[string][]byte{
		"main.go":  []byte("package main\n"),
		"run.sh":   []byte("#!/usr/bin/env bash\necho hi\n"),
		"data.bin": make([]byte, 5*1024*1024),
	})
	if out, err := check(dir); err != nil {
		t.Fatalf("check.sh on a clean repository: %v\n%s", err, out)
	}
}

func TestTheRepositoryIsClean(t *testing.T) {
	if out, err := check("../../.."); err != nil {
		t.Fatalf("check.sh on this repository: %v\n%s", err, out)
	}
}
