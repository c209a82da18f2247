package release

import (
	"context"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// cosignKeyPair generates a cosign key pair with an empty password in a new
// folder and returns the private and public key files.
func cosignKeyPair(t *testing.T, ctx context.Context, tools string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	env := append(os.Environ(), "COSIGN_PASSWORD=")
	if _, err := runEnv(ctx, dir, env, filepath.Join(tools, "bin", "cosign"), "generate-key-pair", "--output-key-prefix", "k"); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "k.key"), filepath.Join(dir, "k.pub")
}

// cosignVerify runs cosign verify of ref against pub and returns its error.
func cosignVerify(ctx context.Context, tools, pub, ref string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(tools, "bin", "cosign"), "verify", "--key", pub,
		"--insecure-ignore-tlog=true", "--allow-http-registry", ref)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPublishPushesAndSignsTheRelease publishes a small release to
// go-containerregistry's in-process registry: the image is pushed by the
// digest images.json lists and its signatures (index and platform image)
// verify with the publishing key and not with another; the chart pulled back
// is byte-identical; a release folder changed after it was built is refused.
func TestPublishPushesAndSignsTheRelease(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root := repoRoot(t)
	tools := toolsDir(t, root)
	dist, res := smallRelease(t, ctx, root)
	key, pub := cosignKeyPair(t, ctx, tools)
	_, otherPub := cosignKeyPair(t, ctx, tools)
	t.Setenv("COSIGN_PASSWORD", "")

	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	prefix := strings.TrimPrefix(srv.URL, "http://") + "/kollect"
	opts := PublishOptions{Dist: dist, Registry: prefix, ToolsDir: tools, CosignKey: key, PlainHTTP: true, Log: t.Logf}

	tampered := copyDir(t, dist)
	flipByte(t, filepath.Join(tampered, ImagesFile))
	bad := opts
	bad.Dist = tampered
	if _, err := Publish(ctx, bad); err == nil || !strings.Contains(err.Error(), SumsFile) {
		t.Fatalf("Publish of a changed release folder = %v, want an error naming %s", err, SumsFile)
	}

	pubd, err := Publish(ctx, opts)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if len(res.Images) != 1 || len(pubd.Images) != 1 || pubd.Images[0] != prefix+"/"+res.Images[0].Name+"@"+res.Images[0].Digest {
		t.Fatalf("pushed %v, want %s/<name>@<digest> of %+v", pubd.Images, prefix, res.Images)
	}
	ref, err := name.ParseReference(pubd.Images[0], name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	signed := []string{pubd.Images[0]}
	for _, m := range im.Manifests {
		signed = append(signed, ref.Context().Digest(m.Digest.String()).String())
	}
	for _, r := range signed {
		if out, err := cosignVerify(ctx, tools, pub, r); err != nil {
			t.Errorf("cosign verify %s with the publishing key: %v\n%s", r, err, out)
		}
		if out, err := cosignVerify(ctx, tools, otherPub, r); err == nil {
			t.Errorf("cosign verify %s passed with another key:\n%s", r, out)
		}
	}

	if len(pubd.Charts) != 1 {
		t.Fatalf("pushed charts %v, want the CRD chart", pubd.Charts)
	}
	pulled := t.TempDir()
	if _, err := run(ctx, "", filepath.Join(tools, "bin", "helm"), "pull", "oci://"+prefix+"/charts/kollect-crds",
		"--version", "0.0.1-test", "--plain-http", "--destination", pulled); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(pulled, "kollect-crds-0.0.1-test.tgz"), filepath.Join(dist, "kollect-crds-0.0.1-test.tgz")} {
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := fileSHA256(filepath.Join(pulled, "kollect-crds-0.0.1-test.tgz"))
	b, _ := fileSHA256(filepath.Join(dist, "kollect-crds-0.0.1-test.tgz"))
	if a != b {
		t.Errorf("the pulled chart (sha256 %s) differs from the release's (%s)", a, b)
	}
}
