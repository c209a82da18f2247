package release

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1/layout"
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
	for _, tool := range []string{"helm", "cyclonedx-gomod", "cosign"} {
		if _, err := os.Stat(filepath.Join(dir, "bin", tool)); err != nil {
			t.Fatalf("%s is missing from %s/bin: run make tools (%v)", tool, dir, err)
		}
	}
	return dir
}

// smallRelease builds a release of one binary for linux/amd64 and the CRD chart
// into ./dist of a new working folder, as make release does.
func smallRelease(t *testing.T, ctx context.Context, root string) (string, *Result) {
	t.Helper()
	work := t.TempDir()
	t.Chdir(work)
	out := filepath.Join(work, "dist")
	res, err := Run(ctx, Options{Repo: root, Version: "v0.0.1-test", Out: "dist",
		Platforms: []Platform{{"linux", "amd64"}}, Binaries: []string{testBinary},
		Charts: []string{"charts/kollect-crds"}, ToolsDir: toolsDir(t, root), Log: t.Logf})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out, res
}

// verifyScript is the sh block of docs/release.md between <!-- marker:begin -->
// and <!-- marker:end -->.
func verifyScript(t *testing.T, root, marker string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "release.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := "(?s)<!-- " + marker + ":begin -->\n```sh\n(.*?)```\n<!-- " + marker + ":end -->"
	m := regexp.MustCompile(re).FindSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/release.md has no %s:begin/%s:end sh block", marker, marker)
	}
	return string(m[1])
}

// trust is what a user takes from the release notes.
type trust struct{ fingerprint, cosignKeySHA256 string }

// runVerify runs the documented commands in dir, with the tools' cosign on
// PATH, and returns their error and output.
func runVerify(ctx context.Context, script, dir, tools string, tr trust) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FINGERPRINT="+tr.fingerprint, "COSIGN_KEY_SHA256="+tr.cosignKeySHA256,
		"PATH="+filepath.Join(tools, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestReleaseIsVerifiedByTheDocumentedCommands(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := repoRoot(t)
	dist, res := smallRelease(t, ctx, root)
	tools := toolsDir(t, root)
	scripts := map[string]string{"ssh-keygen": verifyScript(t, root, "verify"), "cosign": verifyScript(t, root, "verify-cosign")}
	published := trust{fingerprint: res.Fingerprint, cosignKeySHA256: res.CosignKeySHA256}

	names, err := sortedFiles(dist)
	if err != nil {
		t.Fatal(err)
	}
	bin := testBinary + "_v0.0.1-test_linux_amd64"
	chart := "kollect-crds-0.0.1-test.tgz"
	want := []string{AllowedSignersFile, PublicKeyFile, CosignPublicKeyFile, bin, chart}
	image := "aggregator_v0.0.1-test.image.intoto.json"
	for _, signed := range []string{SumsFile, bin + ".cdx.json", bin + ".intoto.json", chart + ".intoto.json", ImagesFile, image} {
		want = append(want, signed, signed+".sig", signed+CosignSignatureSuffix)
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("release files (-want +got):\n%s", diff)
	}
	checkReleaseImages(t, dist, res, bin)
	if len(res.CosignKeySHA256) != 64 {
		t.Fatalf("cosign key digest %q, want 64 hex digits", res.CosignKeySHA256)
	}
	for tool, script := range scripts {
		if out, err := runVerify(ctx, script, dist, tools, published); err != nil || !strings.Contains(out, "release verified") {
			t.Fatalf("the documented %s verification fails on an intact release: %v\n%s", tool, err, out)
		}
	}

	tampers := []struct {
		name    string
		file    string
		trusted trust
	}{
		{name: "a binary with one byte changed fails the checksums", file: bin},
		{name: "a changed SBOM fails its signature and the checksums", file: bin + ".cdx.json"},
		{name: "a changed provenance statement fails its signature", file: bin + ".intoto.json"},
		{name: "a changed chart fails the checksums", file: chart},
		{name: "a changed SHA256SUMS fails its signature", file: SumsFile},
		{name: "a changed image list fails its signature and the checksums", file: ImagesFile},
		{name: "a changed image layer fails the layout's digests", file: largestBlob(t, dist)},
		{name: "a key other than the published one is refused",
			trusted: trust{fingerprint: "SHA256:notthepublishedkey", cosignKeySHA256: strings.Repeat("0", 64)}},
	}
	for _, tc := range tampers {
		for tool, script := range scripts {
			t.Run(tc.name+" ("+tool+")", func(t *testing.T) {
				dir := copyDir(t, dist)
				if tc.file != "" {
					flipByte(t, filepath.Join(dir, tc.file))
				}
				tr := published
				if tc.trusted != (trust{}) {
					tr = tc.trusted
				}
				if out, err := runVerify(ctx, script, dir, tools, tr); err == nil {
					t.Fatalf("%s verification passed on a tampered release:\n%s", tool, out)
				}
			})
		}
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
		if err := Build(ctx, BuildSpec{Dir: src.Dir, Package: "./cmd/kollect-aggregator",
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
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o750)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
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

// checkReleaseImages checks the release's OCI layout holds the image
// ImagesFile lists, under the digest listed, for the platform built.
func checkReleaseImages(t *testing.T, dist string, res *Result, bin string) {
	t.Helper()
	var listed []ImageRecord
	b, err := os.ReadFile(filepath.Join(dist, ImagesFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &listed); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res.Images, listed); diff != "" {
		t.Errorf("%s differs from the result (-result +file):\n%s", ImagesFile, diff)
	}
	if len(listed) != 1 || listed[0].Name != "aggregator" || strings.Join(listed[0].Platforms, ",") != "linux/amd64" ||
		strings.Join(listed[0].SBOMs, ",") != bin+".cdx.json" {
		t.Fatalf("images listed: %+v, want aggregator for linux/amd64 with its binary's SBOM", listed)
	}
	idx, err := layout.ImageIndexFromPath(filepath.Join(dist, ImagesDir))
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Digest.String() != listed[0].Digest ||
		im.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "aggregator:v0.0.1-test" {
		t.Fatalf("the layout's index.json holds %+v, want aggregator:v0.0.1-test at %s", im.Manifests, listed[0].Digest)
	}
}

// largestBlob names the largest blob of the release's image layout (the
// binary's layer), relative to dist.
func largestBlob(t *testing.T, dist string) string {
	t.Helper()
	dir := filepath.Join(ImagesDir, "blobs", "sha256")
	ents, err := os.ReadDir(filepath.Join(dist, dir))
	if err != nil {
		t.Fatal(err)
	}
	var best string
	var size int64 = -1
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Size() > size {
			best, size = e.Name(), info.Size()
		}
	}
	return filepath.Join(dir, best)
}
