package quickstart_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/testenv"
)

// block is one fenced block of the page with the quickstart-test marker
// before it, if any.
type block struct {
	lang, marker, text string
}

var (
	fence  = regexp.MustCompile("(?s)(?:<!-- quickstart-test: ([^>]*?) -->\n)?```(\\w*)\n(.*?)```")
	export = regexp.MustCompile(`(?m)^export (\w+)=`)
	until  = regexp.MustCompile(`^background until "([^"]+)"$`)
	spaces = regexp.MustCompile(` +`)
	dashes = regexp.MustCompile(`-+`)
)

// blocks returns the page's fenced blocks in order.
func blocks(t *testing.T, page string) []block {
	t.Helper()
	var out []block
	for _, m := range fence.FindAllStringSubmatch(page, -1) {
		out = append(out, block{marker: m[1], lang: m[2], text: m[3]})
	}
	return out
}

// TestGettingStarted runs every shell block of docs/getting-started.md's
// section 2 in order, in one bash, against a real API server, a Git server
// and PostgreSQL: the block exporting the variables is replaced by the
// test's values (the names must match), the `kollect dev` block runs in
// the background until it prints its ready line, and each "expect" block
// must appear in the output. At the end kollect dev must stop with status
// 0 on SIGTERM.
func TestGettingStarted(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "getting-started.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(page)
	start, end := strings.Index(section, "## 2. "), strings.Index(section, "## 4. ")
	if start < 0 || end < start {
		t.Fatal("docs/getting-started.md lacks sections 2 to 4")
	}
	section = section[start:end]

	kube := testenv.StartKube(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kube.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl, err := testenv.Tool("envtest/kubectl")
	if err != nil {
		t.Fatal(err)
	}
	pg := testenv.StartPostgres(t)
	git := testenv.StartGit(t, testenv.GitOptions{})
	repo := filepath.Join(git.Root, "inventory.git")
	for _, args := range [][]string{{"init", "--quiet", "--bare", "--initial-branch=main", repo}, {"-C", repo, "config", "http.receivepack", "true"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	env := map[string]string{
		"GIT_URL":   git.URL + "/inventory.git",
		"GIT_TOKEN": "not-checked-by-this-server",
		"PG_DSN":    pg.CreateDatabase(t, "inventory"),
	}
	devLog := filepath.Join(t.TempDir(), "dev.log")
	script, expects := buildScript(t, blocks(t, section), env, devLog)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig,
		"PATH="+filepath.Dir(kubectl)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_TERMINAL_PROMPT=0",
		// kollect dev's files for the CLI, this test's own.
		"KOLLECT_DEV_BUS_FILE="+filepath.Join(t.TempDir(), "dev-bus.json"),
		"KOLLECT_DEV_QUERY_FILE="+filepath.Join(t.TempDir(), "dev-query.json"))
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	dev, _ := os.ReadFile(devLog)
	if err != nil {
		t.Fatalf("the page's commands failed: %v\n%s\n--- kollect dev:\n%s", err, out, tail(string(dev), 40))
	}
	for _, want := range expects {
		if !strings.Contains(normalize(string(out)), normalize(want)) {
			t.Errorf("output lacks the page's expected result:\n%s\n--- output:\n%s", want, out)
		}
	}
	if strings.Contains(string(dev), "log.SetLogger(...) was never called") {
		t.Errorf("kollect dev printed controller-runtime's missing-logger trace:\n%s", tail(string(dev), 40))
	}
}

// buildScript turns the blocks into one bash script and returns the
// expected outputs.
func buildScript(t *testing.T, bs []block, env map[string]string, devLog string) (string, []string) {
	t.Helper()
	var b strings.Builder
	var expects []string
	b.WriteString("set -euo pipefail\nqs_dev=\nqs_stop() { [ -z \"$qs_dev\" ] || { kill -TERM $qs_dev 2>/dev/null; wait $qs_dev; }; }\ntrap 'qs_stop || true' EXIT\n")
	backgrounds := 0
	for _, bl := range bs {
		switch {
		case bl.marker == "expect":
			expects = append(expects, strings.TrimRight(bl.text, "\n"))
		case bl.lang != "sh":
			continue
		case strings.HasPrefix(bl.marker, "skip"):
			continue
		case strings.HasPrefix(bl.marker, "env"):
			var names []string
			for _, m := range export.FindAllStringSubmatch(bl.text, -1) {
				names = append(names, m[1])
			}
			var have []string
			for k, v := range env {
				have = append(have, k)
				fmt.Fprintf(&b, "export %s=%q\n", k, v)
			}
			slices.Sort(names)
			slices.Sort(have)
			if !slices.Equal(names, have) {
				t.Fatalf("the page exports %v, the test sets %v", names, have)
			}
		case until.MatchString(bl.marker):
			backgrounds++
			ready := until.FindStringSubmatch(bl.marker)[1]
			fmt.Fprintf(&b, "%s >%q 2>&1 &\nqs_dev=$!\n", strings.TrimSpace(bl.text), devLog)
			// Poll the log with a deadline: the page says to wait for this line.
			fmt.Fprintf(&b, "for _ in $(seq 600); do grep -q %q %q && break; kill -0 $qs_dev || { echo 'kollect dev exited'; exit 1; }; sleep 0.2; done\n", ready, devLog)
			fmt.Fprintf(&b, "grep -q %q %q || { echo 'not ready after 120s'; exit 1; }\n", ready, devLog)
		case bl.marker != "":
			t.Fatalf("unknown quickstart-test marker %q", bl.marker)
		default:
			fmt.Fprintf(&b, "%s\n", bl.text)
		}
	}
	if backgrounds != 1 || len(expects) == 0 {
		t.Fatalf("the page has %d background blocks and %d expect blocks; want 1 and some", backgrounds, len(expects))
	}
	b.WriteString("kill -TERM $qs_dev\nwait $qs_dev\nqs_dev=\n")
	return b.String(), expects
}

// normalize trims each line and shortens runs of spaces and of dashes, so
// that an expected psql table matches whatever its column widths.
func normalize(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = spaces.ReplaceAllString(strings.TrimSpace(l), " ")
		lines[i] = dashes.ReplaceAllString(l, "-")
	}
	return strings.Join(lines, "\n")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
