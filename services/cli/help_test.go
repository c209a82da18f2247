package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/pkg/testenv/golden"
	"kollect.dev/kollect/services/cli"
)

// TestHelpOfEveryCommand keeps the --help of every command (but dev and
// verify, whose --help is their own binary's) in testdata/help/*.golden:
// what a person reads.
func TestHelpOfEveryCommand(t *testing.T) {
	root := cli.NewCommand(cli.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.DisableFlagParsing || c.Hidden {
			return
		}
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(path[:len(path):len(path)], sub.Name()))
		}
	}
	walk(root, nil)
	if len(paths) < 12 {
		t.Fatalf("walked %d commands: %v", len(paths), paths)
	}
	for _, path := range paths {
		name := strings.Join(append([]string{"kollect"}, path...), "-")
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := run(t, append(path, "--help")...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			golden.Check(t, filepath.Join("testdata", filepath.Join("help", name)+".golden"), []byte(stdout))
		})
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		t.Run(shell, func(t *testing.T) {
			code, stdout, stderr := run(t, "completion", shell)
			if code != 0 || !strings.Contains(stdout, "__complete") {
				t.Fatalf("exit %d, stderr %s, script:\n%.300s", code, stderr, stdout)
			}
			if shell == "bash" {
				golden.Check(t, filepath.Join("testdata", "completion.bash"+".golden"), []byte(stdout))
			}
		})
	}
}

// TestDynamicCompletion asks the completion the shells ask (cobra's
// __complete) for formats, layouts and the kubeconfig's contexts.
func TestDynamicCompletion(t *testing.T) {
	kcfg := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kcfg, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c1, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u1, user: {token: x}}]
contexts:
- {name: prod-eu, context: {cluster: c1, user: u1}}
- {name: prod-us, context: {cluster: c1, user: u1}}
- {name: staging, context: {cluster: c1, user: u1}}
current-context: staging
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"contexts of the kubeconfig by prefix", []string{"collect", "--kubeconfig", kcfg, "--context", "prod"}, "prod-eu\nprod-us\n:4\n"},
		{"clusters of the kubeconfig", []string{"get", "--kubeconfig", kcfg, "--cluster", ""}, "c1\n:4\n"},
		{"output formats of collect", []string{"collect", "-o", ""}, "ndjson\njson\nyaml\ntable\nwide\njsonpath=\njsonpath-file=\ncustom-columns=\n:4\n"},
		{"templates of get", []string{"get", "inventories", "-o", "j"}, "json\njsonpath=\njsonpath-file=\n:4\n"},
		{"output formats of diff", []string{"diff", "-o", "j"}, "json\n:4\n"},
		{"layouts", []string{"collect", "--layout", "p"}, "perResource\n:4\n"},
		{"kinds of get", []string{"get", "s"}, "sinks\n:4\n"},
		{"families of deadletters list", []string{"deadletters", "list", "--family", ""}, "snapshot\ndatabase\nevent\n:4\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := cli.Main(context.Background(), append([]string{"__complete"}, tc.args...), cli.Streams{Out: &out, Err: &errOut})
			if code != 0 || out.String() != tc.want {
				t.Errorf("exit %d, completions %q, want %q (stderr %s)", code, out.String(), tc.want, errOut.String())
			}
		})
	}
}
