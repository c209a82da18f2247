package command_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kollect.dev/kollect/services/cli/verify/command"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestHelpOfEveryCommand keeps the --help of kollect-verify and each of its
// subcommands in testdata/help/*.golden: what `kollect verify --help` shows.
func TestHelpOfEveryCommand(t *testing.T) {
	root := command.NewCommand(command.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	paths := [][]string{nil}
	for _, sub := range root.Commands() {
		if sub.Name() != "help" && sub.Name() != "completion" {
			paths = append(paths, []string{sub.Name()})
		}
	}
	if len(paths) < 3 {
		t.Fatalf("found %d commands: %v", len(paths), paths)
	}
	for _, path := range paths {
		name := strings.Join(append([]string{"kollect-verify"}, path...), "-")
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := command.Main(context.Background(), append(path, "--help"), command.Streams{Out: &out, Err: &errOut})
			if code != 0 || errOut.Len() != 0 {
				t.Fatalf("exit %d, stderr %s", code, errOut.String())
			}
			golden(t, filepath.Join("help", name), out.Bytes())
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}
