package release

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testBinary is the smallest service binary: the release tests build only it.
const testBinary = "kollect-aggregator"

func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("find the repository root: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func toolsDir(t *testing.T, root string) string {
	t.Helper()
	dir := os.Getenv("KOLLECT_TOOLS_DIR")
	if dir == "" {
		out, err := exec.Command("bash", filepath.Join(root, "deploy/tools/build.sh"), "dir").Output()
		if err != nil {
			t.Fatalf("find the tools folder: %v", err)
		}
		dir = strings.TrimSpace(string(out))
	}
	for _, tool := range []string{"helm", "cyclonedx-gomod"} {
		if _, err := os.Stat(filepath.Join(dir, "bin", tool)); err != nil {
			t.Fatalf("%s is missing from %s/bin: run make tools (%v)", tool, dir, err)
		}
	}
	return dir
}

// smallRelease builds a release of one binary for linux/amd64 and the CRD chart.
func smallRelease(t *testing.T, ctx context.Context, root string) (string, *Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "dist")
	res, err := Run(ctx, Options{Repo: root, Version: "v0.0.1-test", Out: out,
		Platforms: []Platform{{"linux", "amd64"}}, Binaries: []string{testBinary},
		Charts: []string{"charts/kollect-crds"}, ToolsDir: toolsDir(t, root), Log: t.Logf})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out, res
}

// verifyScript is the verification block of docs/release.md.
func verifyScript(t *testing.T, root string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "release.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- verify:begin -->\n```sh\n(.*?)```\n<!-- verify:end -->").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/release.md has no verify:begin/verify:end sh block")
	}
	return string(m[1])
}

// runVerify runs the documented commands in dir and returns their error and output.
func runVerify(ctx context.Context, script, dir, fingerprint string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FINGERPRINT="+fingerprint)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestReleaseIsVerifiedByTheDocumentedCommands(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := repoRoot(t)
	dist, res := smallRelease(t, ctx, root)
	script := verifyScript(t, root)

	names, err := sortedFiles(dist)
	if err != nil {
		t.Fatal(err)
	}
	bin := testBinary + "_v0.0.1-test_linux_amd64"
	want := []string{AllowedSignersFile, SumsFile, SumsFile + ".sig", bin, bin + ".cdx.json", bin + ".cdx.json.sig",
		bin + ".intoto.json", bin + ".intoto.json.sig", "kollect-crds-0.0.1-test.tgz",
		"kollect-crds-0.0.1-test.tgz.intoto.json", "kollect-crds-0.0.1-test.tgz.intoto.json.sig", PublicKeyFile}
	sort.Strings(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("release files (-want +got):\n%s", diff)
	}
	if out, err := runVerify(ctx, script, dist, res.Fingerprint); err != nil || !strings.Contains(out, "release verified") {
		t.Fatalf("the documented verification fails on an intact release: %v\n%s", err, out)
	}

	tampers := []struct {
		name        string
		file        string
		fingerprint string
	}{
		{name: "a binary with one byte changed fails the checksums", file: bin},
		{name: "a changed SBOM fails its signature and the checksums", file: bin + ".cdx.json"},
		{name: "a changed provenance statement fails its signature", file: bin + ".intoto.json"},
		{name: "a changed chart fails the checksums", file: "kollect-crds-0.0.1-test.tgz"},
		{name: "a key other than the published one is refused", fingerprint: "SHA256:notthepublishedkey"},
	}
	for _, tc := range tampers {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, dist)
			if tc.file != "" {
				flipByte(t, filepath.Join(dir, tc.file))
			}
			fp := res.Fingerprint
			if tc.fingerprint != "" {
				fp = tc.fingerprint
			}
			if out, err := runVerify(ctx, script, dir, fp); err == nil {
				t.Fatalf("verification passed on a tampered release:\n%s", out)
			}
		})
	}
}

func TestReleaseBinaryIsReproducible(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := repoRoot(t)
	var bins [][]byte
	for i := range 2 {
		src, err := checkout(ctx, root, "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(src.Dir) })
		out := filepath.Join(t.TempDir(), testBinary)
		if err := Build(ctx, BuildSpec{Dir: src.Dir, Package: "./services/aggregator/cmd",
			Platform: Platform{"linux", "amd64"}, Version: "v0.0.1-test", Commit: src.Commit, Out: out}); err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(src.Dir)) {
			t.Fatalf("build %d embeds its source folder %s", i, src.Dir)
		}
		bins = append(bins, b)
	}
	if !bytes.Equal(bins[0], bins[1]) {
		t.Fatalf("two builds of the same commit from two folders differ (%d and %d bytes)", len(bins[0]), len(bins[1]))
	}
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	names, err := sortedFiles(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// flipByte changes the byte in the middle of a file.
func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x01
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
