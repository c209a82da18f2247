package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"kollect.dev/kollect/deploy/images"
)

// ctr runs containerd's ctr in the k8s.io namespace, the one the CRI plugin serves.
func (c *Cluster) ctr(ctx context.Context, args ...string) (string, error) {
	args = append([]string{"--address", c.ContainerdSocket(), "--namespace", "k8s.io"}, args...)
	cmd := exec.CommandContext(ctx, c.toolPath("cluster/ctr"), args...) //nolint:gosec // G204: the cluster's ctr
	// Only standard output is the answer: ctr warns on standard error (cgroup v1 is
	// deprecated), and those words are no container IDs.
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("ctr %s: %w: %s", strings.Join(args[4:], " "), err, strings.TrimSpace(stderr.String()+out.String()))
	}
	return out.String(), nil
}

// Import loads imgs (reference -> image) into containerd as one docker archive.
func (c *Cluster) Import(ctx context.Context, imgs map[string]v1.Image) error {
	refs := map[name.Reference]v1.Image{}
	var names []string
	for r, img := range imgs {
		ref, err := name.ParseReference(r)
		if err != nil {
			return fmt.Errorf("import %s: %w", r, err)
		}
		refs[ref] = img
		names = append(names, r)
	}
	f, err := os.CreateTemp(c.cfg.Dir, "images-*.tar")
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	_ = f.Close()
	defer func() { _ = os.Remove(f.Name()) }()
	if err := tarball.MultiRefWriteToFile(f.Name(), refs); err != nil {
		return fmt.Errorf("write image archive: %w", err)
	}
	t0 := time.Now()
	if _, err := c.ctr(ctx, "images", "import", "--platform", "linux/amd64", f.Name()); err != nil {
		return err
	}
	c.logf("imported %s in %v", strings.Join(names, ", "), time.Since(t0).Round(time.Millisecond))
	return nil
}

// GoImage builds the main package pkg (run in the module at dir) as a static linux/amd64
// binary named bin and packs it as an image on Kollect's base layer (deploy/images).
func (c *Cluster) GoImage(ctx context.Context, dir, pkg, bin string) (v1.Image, error) {
	out := filepath.Join(c.cfg.Dir, "bin", bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg) //nolint:gosec // G204: our packages
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	ca, err := os.ReadFile(images.CABundlePath)
	if err != nil {
		return nil, fmt.Errorf("CA bundle: %w", err)
	}
	created := time.Unix(0, 0)
	base, err := images.BaseLayer(ca, created)
	if err != nil {
		return nil, err
	}
	b := images.Binary{Name: bin, Files: map[string]string{"linux/amd64": out}}
	return images.Image(b, "linux/amd64", base, images.Meta{Version: "e2e", Commit: "e2e", Source: pkg, Created: created})
}

// ImportPause builds the pause program and imports it as PauseImage.
func (c *Cluster) ImportPause(ctx context.Context) error {
	here, err := os.Getwd()
	if err != nil {
		return err
	}
	img, err := c.GoImage(ctx, here, "kollect.dev/kollect/deploy/e2e/pause", "pause")
	if err != nil {
		return err
	}
	return c.Import(ctx, map[string]v1.Image{PauseImage: img})
}

// LayoutImages reads the linux/amd64 image of each index in the OCI layout dir (make
// images) and names it registry/<binary>:tag, the chart's image references.
func LayoutImages(dir, registry, tag string) (map[string]v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("read OCI layout %s (run make images): %w", dir, err)
	}
	root, err := p.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("read OCI layout %s: %w", dir, err)
	}
	m, err := root.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("read OCI layout %s: %w", dir, err)
	}
	out := map[string]v1.Image{}
	for _, d := range m.Manifests {
		bin, _, _ := strings.Cut(d.Annotations[images.RefNameAnnotation], ":")
		idx, err := root.ImageIndex(d.Digest)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", bin, err)
		}
		im, err := idx.IndexManifest()
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", bin, err)
		}
		for _, md := range im.Manifests {
			if md.Platform != nil && md.Platform.OS == "linux" && md.Platform.Architecture == "amd64" {
				img, err := idx.Image(md.Digest)
				if err != nil {
					return nil, fmt.Errorf("image %s: %w", bin, err)
				}
				out[registry+"/"+bin+":"+tag] = img
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("OCI layout %s holds no linux/amd64 image", dir)
	}
	return out, nil
}
