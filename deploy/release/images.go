package release

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"kollect.dev/kollect/deploy/images"
)

// Images of a release: an OCI image layout in ImagesDir and ImagesFile, which
// lists every image with its index digest (in SHA256SUMS and signed, so the
// signature covers the content-addressed layout).
const (
	ImagesDir  = "images"
	ImagesFile = "images.json"
	// DefaultSource is the images' org.opencontainers.image.source when the
	// repository has no origin.
	DefaultSource = "https://github.com/kollect-dev/kollect"
)

// ImageRecord is one image of ImagesFile.
type ImageRecord struct {
	// Name is the image's name: the chart's <registry>/<name> (control,
	// collector, ..., kollect for the CLI).
	Name string `json:"name"`
	// Tag is the release version.
	Tag string `json:"tag"`
	// Digest is the multi-platform index's digest.
	Digest string `json:"digest"`
	// Platforms are the os/arch pairs the index holds.
	Platforms []string `json:"platforms"`
	// SBOMs are the CycloneDX files of the binaries inside, one per platform.
	SBOMs []string `json:"sboms,omitempty"`
}

// ImageName is the image name of a released binary: the chart's binary name.
func ImageName(b Binary) string { return strings.TrimPrefix(b.Name, "kollect-") }

// built maps a binary to its path per "os/arch" (linux only: images run on
// Linux nodes).
type built map[Binary]map[string]string

func (bt built) add(b Binary, p Platform, path string) {
	if p.OS != "linux" {
		return
	}
	if bt[b] == nil {
		bt[b] = map[string]string{}
	}
	bt[b][p.String()] = path
}

// assemble builds one index per binary on a base layer made of the build
// machine's CA bundle, with the commit's time as every date.
func assemble(src *Source, version string, bins built) (map[string]v1.ImageIndex, error) {
	ca, err := os.ReadFile(images.CABundlePath)
	if err != nil {
		return nil, fmt.Errorf("read the CA bundle for the images (Debian's ca-certificates): %w", err)
	}
	base, err := images.BaseLayer(ca, src.Time)
	if err != nil {
		return nil, err
	}
	meta := images.Meta{Version: version, Commit: src.Commit, Source: src.Remote, Created: src.Time}
	if meta.Source == "" {
		meta.Source = DefaultSource
	}
	idxs := map[string]v1.ImageIndex{}
	for b, files := range bins {
		idx, err := images.Index(images.Binary{Name: ImageName(b), Files: files}, base, meta)
		if err != nil {
			return nil, err
		}
		idxs[ImageName(b)] = idx
	}
	return idxs, nil
}

// releaseImages writes the release's images into o.Out/ImagesDir, lists them
// in ImagesFile and writes a provenance statement per image.
func releaseImages(o Options, src *Source, bins built, res *Result) error {
	if len(bins) == 0 {
		return nil
	}
	idxs, err := assemble(src, o.Version, bins)
	if err != nil {
		return err
	}
	if _, err := images.WriteLayout(filepath.Join(o.Out, ImagesDir), o.Version, idxs); err != nil {
		return err
	}
	var records []ImageRecord
	for b, files := range bins {
		idx := idxs[ImageName(b)]
		d, err := idx.Digest()
		if err != nil {
			return fmt.Errorf("digest of image %s: %w", ImageName(b), err)
		}
		r := ImageRecord{Name: ImageName(b), Tag: o.Version, Digest: d.String()}
		for p := range files {
			r.Platforms = append(r.Platforms, p)
			r.SBOMs = append(r.SBOMs, fmt.Sprintf("%s_%s_%s.cdx.json", b.Name, o.Version, strings.ReplaceAll(p, "/", "_")))
		}
		sort.Strings(r.Platforms)
		sort.Strings(r.SBOMs)
		records = append(records, r)
		prov := fmt.Sprintf("%s_%s.image.intoto.json", ImageName(b), o.Version)
		if err := writeJSON(filepath.Join(o.Out, prov), imageProvenance(r, b, src)); err != nil {
			return err
		}
		res.Provenance = append(res.Provenance, prov)
	}
	sort.Slice(records, func(i, j int) bool { return records[i].Name < records[j].Name })
	if err := writeJSON(filepath.Join(o.Out, ImagesFile), records); err != nil {
		return err
	}
	res.Images = records
	o.Log("wrote %d images into %s", len(records), filepath.Join(o.Out, ImagesDir))
	return nil
}

// imageProvenance describes an image index: its digest, the binary it
// packages and the source commit.
func imageProvenance(r ImageRecord, b Binary, src *Source) *Statement {
	return &Statement{
		Type:          StatementType,
		Subject:       []Resource{{Name: r.Name + ":" + r.Tag, Digest: map[string]string{"sha256": strings.TrimPrefix(r.Digest, "sha256:")}}},
		PredicateType: PredicateType,
		Predicate: Provenance{
			BuildDefinition: BuildDefinition{
				BuildType:            ImageBuildType,
				ExternalParameters:   map[string]any{"version": r.Tag, "package": b.Package, "platforms": r.Platforms},
				InternalParameters:   map[string]any{"base": "passwd, group, nsswitch.conf, " + images.CABundlePath, "user": fmt.Sprintf("%d:%d", images.UID, images.GID)},
				ResolvedDependencies: []Resource{sourceResource(src)},
			},
			RunDetails: RunDetails{Builder: builder()},
		},
	}
}

// ImagesOptions configure a build of the images alone (make images).
type ImagesOptions struct {
	// Repo, Commit, Version, Platforms and Binaries are as in Options.
	Repo, Commit, Version string
	Platforms             []Platform
	Binaries              []string
	// Out is the OCI image layout folder to write (emptied first).
	Out string
	// Push, when set, is a registry prefix (registry.example.com/kollect)
	// the images are pushed to as <Push>/<name>:<Version>.
	Push string
	// Ref, when set, is the one reference the one image built is pushed to
	// (skaffold's $IMAGE); Binaries must name one binary.
	Ref string
	// WorkTree builds the work tree's files as they are (a development loop)
	// instead of Commit's tree; the images still name the HEAD commit.
	WorkTree bool
	// Log receives progress lines (nil: none).
	Log func(format string, args ...any)
}

// Images builds the binaries of a commit and packages them as images into
// an OCI layout, pushing them when o.Push is set. It returns the images and,
// when pushed, their references by digest.
func Images(ctx context.Context, o ImagesOptions) ([]ImageRecord, []string, error) {
	if !versionRE.MatchString(o.Version) {
		return nil, nil, fmt.Errorf("check version %q: want vMAJOR.MINOR.PATCH[-pre]", o.Version)
	}
	if o.Commit == "" {
		o.Commit = "HEAD"
	}
	if o.Platforms == nil {
		o.Platforms = DefaultPlatforms
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, nil, err
	}
	src, cleanup, err := source(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	defer cleanup()
	bins, err := discover(src.Dir, o.Binaries)
	if err != nil {
		return nil, nil, err
	}
	if len(o.Binaries) == 0 {
		bins = slices.DeleteFunc(bins, func(b Binary) bool { return b.Name == DevBinary || b.Name == VerifyBinary })
	}
	if o.Ref != "" && len(bins) != 1 {
		return nil, nil, fmt.Errorf("push to %s: name exactly one binary, not %d", o.Ref, len(bins))
	}
	tmp, err := os.MkdirTemp("", "kollect-images-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	all := built{}
	for _, p := range o.Platforms {
		for _, b := range bins {
			path := filepath.Join(tmp, b.Name+"_"+p.OS+"_"+p.Arch)
			o.Log("build %s for %s", b.Name, p)
			if err := Build(ctx, BuildSpec{Dir: src.Dir, Package: b.Package, Platform: p, Version: o.Version,
				Commit: src.Commit, Out: path}); err != nil {
				return nil, nil, err
			}
			all.add(b, p, path)
		}
	}
	idxs, err := assemble(src, o.Version, all)
	if err != nil {
		return nil, nil, err
	}
	if _, err := images.WriteLayout(out, o.Version, idxs); err != nil {
		return nil, nil, err
	}
	var records []ImageRecord
	for name, idx := range idxs {
		d, err := idx.Digest()
		if err != nil {
			return nil, nil, err
		}
		records = append(records, ImageRecord{Name: name, Tag: o.Version, Digest: d.String()})
	}
	sort.Slice(records, func(i, j int) bool { return records[i].Name < records[j].Name })
	o.Log("wrote %d images into %s", len(records), out)
	switch {
	case o.Ref != "":
		ref, err := images.PushTo(ctx, o.Ref, idxs[records[0].Name])
		return records, []string{ref}, err
	case o.Push != "":
		refs, err := images.Push(ctx, o.Push, o.Version, idxs)
		return records, refs, err
	}
	return records, nil, nil
}

// source is the tree Images builds: Commit's tree extracted (cleanup
// removes it), or with WorkTree the work tree itself, naming its HEAD.
func source(ctx context.Context, o ImagesOptions) (src *Source, cleanup func(), err error) {
	if !o.WorkTree {
		src, err := checkout(ctx, o.Repo, o.Commit)
		if err != nil {
			return nil, nil, err
		}
		return src, func() { _ = os.RemoveAll(src.Dir) }, nil
	}
	if src, err = describe(ctx, o.Repo, "HEAD"); err != nil {
		return nil, nil, err
	}
	if src.Dir, err = filepath.Abs(o.Repo); err != nil {
		return nil, nil, err
	}
	return src, func() {}, nil
}
