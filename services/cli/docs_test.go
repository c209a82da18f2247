package cli_test

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"kollect.dev/kollect/services/cli"
)

// TestCLIDocExamplesParse takes every kollect command line of the sh blocks
// of docs/cli.md and parses it with the real command tree: the command
// exists, its flags exist and take those values, its arguments and flag
// groups are valid. (Running them needs a cluster and a bus; the commands'
// own tests run the same lines.)
func TestCLIDocExamplesParse(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(doc, -1)
	n := 0
	for _, b := range blocks {
		text := strings.ReplaceAll(string(b[1]), "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			line, _, _ = strings.Cut(line, " #")
			fields := strings.Fields(line)
			if len(fields) < 2 || fields[0] != "kollect" || strings.ContainsAny(line, "<[") { // not synopses
				continue
			}
			n++
			args := make([]string, 0, len(fields)-1)
			for _, f := range fields[1:] {
				args = append(args, strings.NewReplacer("'", "", `"`, "").Replace(f))
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				root := cli.NewCommand(cli.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
				cmd, rest, err := root.Find(args)
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.ParseFlags(rest); err != nil {
					t.Fatal(err)
				}
				if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
					t.Fatal(err)
				}
				if err := cmd.ValidateFlagGroups(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
	if n < 15 {
		t.Fatalf("found %d kollect command lines in docs/cli.md", n)
	}
}
