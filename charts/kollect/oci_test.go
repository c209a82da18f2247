package chart_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"sigs.k8s.io/yaml"
)

// The charts are published with `helm push` to an OCI registry (docs/release.md): both are
// packaged, pushed to an in-process registry (go-containerregistry's, the same protocol as
// ghcr.io) and read back with `helm pull`, `helm show` and `helm template` from the oci:// URL.
func TestChartsPushToAnOCIRegistryAndInstallFromIt(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	repo := "oci://" + strings.TrimPrefix(srv.URL, "http://") + "/kollect-dev/charts"
	for _, dir := range []string{".", "../kollect-crds"} {
		meta := readChartMeta(t, dir)
		t.Run(meta.Name+" round-trips through the registry", func(t *testing.T) {
			pkgDir := t.TempDir()
			helm(t, "package", dir, "--destination", pkgDir)
			tgz := filepath.Join(pkgDir, meta.Name+"-"+meta.Version+".tgz")
			pushed, err := os.ReadFile(tgz)
			if err != nil {
				t.Fatalf("helm package wrote no %s: %v", filepath.Base(tgz), err)
			}
			for _, f := range tarNames(t, pushed) {
				if strings.HasSuffix(f, "_test.go") || strings.Contains(f, "/testdata/") {
					t.Errorf("the package holds %s (.helmignore)", f)
				}
			}
			out, err := helmErr(t, "push", tgz, repo, "--plain-http")
			if err != nil || !strings.Contains(out, "Digest: sha256:") {
				t.Fatalf("helm push: %v\n%s", err, out)
			}
			ref := repo + "/" + meta.Name

			pullDir := t.TempDir()
			helm(t, "pull", ref, "--version", meta.Version, "--plain-http", "--destination", pullDir)
			pulled, err := os.ReadFile(filepath.Join(pullDir, filepath.Base(tgz)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(pushed, pulled) {
				t.Error("the chart pulled back differs from the package pushed")
			}

			var shown chartMeta
			if err := yaml.Unmarshal(helm(t, "show", "chart", ref, "--version", meta.Version, "--plain-http"), &shown); err != nil {
				t.Fatal(err)
			}
			if shown.Name != meta.Name || shown.Version != meta.Version || shown.AppVersion != meta.AppVersion ||
				shown.Annotations["artifacthub.io/crds"] != meta.Annotations["artifacthub.io/crds"] {
				t.Errorf("helm show chart from the registry = %+v, want Chart.yaml's name, versions and annotations", shown)
			}
		})
	}
	t.Run("kollect renders from the registry as from the source tree", func(t *testing.T) {
		fromOCI := helm(t, "template", releaseName, repo+"/kollect", "--plain-http", "--namespace", namespace,
			"--set", "nats.auth.existingSecret=nats-users")
		local := render(t, "", "nats.auth.existingSecret=nats-users")
		if !bytes.Equal(fromOCI, local) {
			t.Error("helm template of the oci:// chart differs from the local chart's")
		}
	})
}

// tarNames lists the files of a gzipped tar archive.
func tarNames(t *testing.T, tgz []byte) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h.Name)
	}
}
