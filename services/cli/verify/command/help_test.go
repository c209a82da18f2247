package command_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/testenv/golden"
	"kollect.dev/kollect/services/cli/verify/command"
)

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
			golden.Check(t, filepath.Join("testdata", filepath.Join("help", name)+".golden"), out.Bytes())
		})
	}
}
