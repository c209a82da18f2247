package images_test

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"kollect.dev/kollect/deploy/images"
	"kollect.dev/kollect/deploy/release"
)

var meta = images.Meta{Version: "v1.2.3", Commit: "0123abcd", Source: "https://example.com/kollect",
	Created: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}

// buildHello builds testdata/hello for both release platforms the way a
// release does, stamping meta's version and commit.
func buildHello(t *testing.T) images.Binary {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b := images.Binary{Name: "hello", Files: map[string]string{}}
	for _, p := range release.DefaultPlatforms {
		out := filepath.Join(t.TempDir(), "hello")
		err := release.Build(context.Background(), release.BuildSpec{Dir: root, Package: "./deploy/images/testdata/hello",
			Platform: p, Version: meta.Version, Commit: meta.Commit, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		b.Files[p.String()] = out
	}
	return b
}

func index(t *testing.T, b images.Binary) v1.ImageIndex {
	t.Helper()
	ca, err := os.ReadFile(images.CABundlePath)
	if err != nil {
		t.Fatalf("read the build machine's CA bundle (Debian's ca-certificates): %v", err)
	}
	base, err := images.BaseLayer(ca, meta.Created)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := images.Index(b, base, meta)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// files lists a layout folder's files with their contents.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestImagesAreReproducibleMinimalAndStamped builds the test binary's image
// twice into OCI layouts and checks the layouts are byte-identical, the index
// holds linux/amd64 and linux/arm64, each image runs as 65532 with the OCI
// labels and holds nothing but the base files and the binary (no shell), and
// the amd64 binary taken out of its image prints the stamped version.
func TestImagesAreReproducibleMinimalAndStamped(t *testing.T) {
	b := buildHello(t)
	dirA, dirB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if _, err := images.WriteLayout(dirA, meta.Version, map[string]v1.ImageIndex{"hello": index(t, b)}); err != nil {
		t.Fatal(err)
	}
	if _, err := images.WriteLayout(dirB, meta.Version, map[string]v1.ImageIndex{"hello": index(t, b)}); err != nil {
		t.Fatal(err)
	}
	a := files(t, dirA)
	if diff := cmp.Diff(a, files(t, dirB)); diff != "" {
		t.Fatalf("two builds differ (-first +second):\n%.2000s", diff)
	}
	top, err := v1.ParseIndexManifest(strings.NewReader(a["index.json"]))
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Manifests) != 1 || top.Manifests[0].Annotations[images.RefNameAnnotation] != "hello:v1.2.3" {
		t.Errorf("index.json does not name one index hello:v1.2.3: %s", a["index.json"])
	}

	idx := index(t, b)
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, d := range im.Manifests {
		platforms = append(platforms, d.Platform.String())
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, platforms); diff != "" {
		t.Errorf("index platforms (-want +got):\n%s", diff)
	}
	for _, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, d.Platform.String(), img)
	}
}

func checkImage(t *testing.T, platform string, img v1.Image) {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Config.User != "65532:65532" || cf.Config.Entrypoint[0] != "/usr/local/bin/hello" || cf.OS+"/"+cf.Architecture != platform {
		t.Errorf("%s: user %q, entrypoint %q, platform %s/%s", platform, cf.Config.User, cf.Config.Entrypoint, cf.OS, cf.Architecture)
	}
	for k, want := range map[string]string{"org.opencontainers.image.revision": meta.Commit,
		"org.opencontainers.image.version": meta.Version, "org.opencontainers.image.source": meta.Source} {
		if got := cf.Config.Labels[k]; got != want {
			t.Errorf("%s: label %s = %q, want %q", platform, k, got, want)
		}
	}
	fsys := map[string][]byte{}
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			fsys[h.Name], _ = io.ReadAll(tr)
		}
	}
	var names []string
	for n := range fsys {
		names = append(names, n)
	}
	sort.Strings(names)
	want := []string{"etc/group", "etc/nsswitch.conf", "etc/passwd", "etc/ssl/certs/ca-certificates.crt", "usr/local/bin/hello"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("%s: image files (-want +got):\n%s", platform, diff)
	}
	if !strings.Contains(string(fsys["etc/passwd"]), "nonroot:x:65532:65532:") {
		t.Errorf("%s: passwd lacks the nonroot user:\n%s", platform, fsys["etc/passwd"])
	}
	if platform != "linux/amd64" || os.Getenv("GOARCH") == "arm64" {
		return
	}
	exe := filepath.Join(t.TempDir(), "hello")
	if err := os.WriteFile(exe, fsys["usr/local/bin/hello"], 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "v1.2.3 (0123abcd)" {
		t.Errorf("the image's binary prints %q, want the stamped \"v1.2.3 (0123abcd)\"", got)
	}
}

// TestPushWritesTheIndexToARegistry pushes to go-containerregistry's
// in-process registry and reads the index back by the digest Push reports.
func TestPushWritesTheIndexToARegistry(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	idx := index(t, buildHello(t))
	prefix := strings.TrimPrefix(srv.URL, "http://") + "/kollect"
	refs, err := images.Push(context.Background(), prefix, meta.Version, map[string]v1.ImageIndex{"hello": idx})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := idx.Digest()
	if len(refs) != 1 || !strings.HasSuffix(refs[0], "/kollect/hello@"+want.String()) {
		t.Fatalf("pushed %v, want one reference ending in /kollect/hello@%s", refs, want)
	}
	ref, err := name.ParseReference(prefix + "/hello:" + meta.Version)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := got.Digest(); d != want {
		t.Errorf("registry holds %s under the tag, pushed %s", d, want)
	}
}
