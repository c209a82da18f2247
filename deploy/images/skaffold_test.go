package images_test

import (
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// TestSkaffoldBuilderPushesToImage runs the skaffold custom builder the way
// skaffold does (IMAGE, PUSH_IMAGE, PLATFORMS in the environment) against
// an in-process registry: the aggregator's image lands under $IMAGE, built
// from the work tree and naming the HEAD commit. Without a registry to push
// to it refuses with a message saying what to set.
func TestSkaffoldBuilderPushesToImage(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	image := strings.TrimPrefix(srv.URL, "http://") + "/kollect-dev/aggregator:skaffold-abc"
	run := func(push string) (string, error) {
		cmd := exec.Command("bash", "skaffold-build.sh", "aggregator")
		cmd.Env = append(os.Environ(), "IMAGE="+image, "PUSH_IMAGE="+push, "PLATFORMS=linux/amd64", "TMPDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("false"); err == nil || !strings.Contains(out, "--default-repo") {
		t.Errorf("PUSH_IMAGE=false: err %v, output %q; want a refusal naming --default-repo", err, out)
	}
	out, err := run("true")
	if err != nil {
		t.Fatalf("skaffold-build.sh: %v\n%s", err, out)
	}
	ref, err := name.ParseReference(image)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(ref)
	if err != nil {
		t.Fatalf("the registry has no index at %s: %v\n%s", image, err, out)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Platform.String() != "linux/amd64" {
		t.Fatalf("index manifests %+v, want one linux/amd64 image", im.Manifests)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cf.Config.Labels["org.opencontainers.image.revision"], strings.TrimSpace(string(head)); got != want {
		t.Errorf("image revision label %q, want HEAD %q", got, want)
	}
	if got := cf.Config.Entrypoint; len(got) != 1 || got[0] != "/usr/local/bin/aggregator" {
		t.Errorf("entrypoint %q, want /usr/local/bin/aggregator", got)
	}
}
