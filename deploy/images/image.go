package images

import (
	"fmt"
	"os"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Meta is what every image of one build says about itself.
type Meta struct {
	// Version is the release version (v0.3.0) or "dev".
	Version string
	// Commit is the source commit.
	Commit string
	// Source is the repository URL (org.opencontainers.image.source).
	Source string
	// Created is the commit's time: the layers' mtimes and the config's
	// created date, so rebuilds are identical.
	Created time.Time
}

// Binary is one program to package: its name (control, collector, ...,
// kollect) and the static binary built for each platform.
type Binary struct {
	Name string
	// Files maps "os/arch" to the binary's path.
	Files map[string]string
}

// labels are the OCI annotations of an image of b.
func labels(b Binary, m Meta) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":    "kollect " + b.Name,
		"org.opencontainers.image.source":   m.Source,
		"org.opencontainers.image.revision": m.Commit,
		"org.opencontainers.image.version":  m.Version,
		"org.opencontainers.image.created":  m.Created.UTC().Format(time.RFC3339),
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.vendor":   "Kollect",
	}
}

// Image builds b's image for one platform on base.
func Image(b Binary, platform string, base v1.Layer, m Meta) (v1.Image, error) {
	path, ok := b.Files[platform]
	if !ok {
		return nil, fmt.Errorf("image %s: no binary for %s", b.Name, platform)
	}
	p, err := v1.ParsePlatform(platform)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", b.Name, err)
	}
	data, err := os.ReadFile(path) //nolint:gosec // G304: the binary the build wrote
	if err != nil {
		return nil, fmt.Errorf("image %s: read binary: %w", b.Name, err)
	}
	exe := "/usr/local/bin/" + b.Name
	bin, err := layer([]entry{{name: exe[1:], mode: 0o755, data: data}}, m.Created)
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), base, bin)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", b.Name, err)
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", b.Name, err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: m.Created.UTC()}
	cf.Author = "kollect.dev"
	cf.Config = v1.Config{
		User:       fmt.Sprintf("%d:%d", UID, GID),
		Entrypoint: []string{exe},
		WorkingDir: "/home/nonroot",
		Env:        []string{"PATH=/usr/local/bin", "SSL_CERT_FILE=" + CABundlePath, "HOME=/home/nonroot"},
		Labels:     labels(b, m),
	}
	cf.History = nil
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", b.Name, err)
	}
	return mutate.Annotations(img, labels(b, m)).(v1.Image), nil
}

// Index builds b's multi-platform index: one image per platform it has a
// binary for, in sorted platform order.
func Index(b Binary, base v1.Layer, m Meta) (v1.ImageIndex, error) {
	platforms := make([]string, 0, len(b.Files))
	for p := range b.Files {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	var adds []mutate.IndexAddendum
	for _, platform := range platforms {
		img, err := Image(b, platform, base, m)
		if err != nil {
			return nil, err
		}
		p, _ := v1.ParsePlatform(platform)
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: p}})
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	idx = mutate.AppendManifests(idx, adds...)
	return mutate.Annotations(idx, labels(b, m)).(v1.ImageIndex), nil
}
