package release

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

// Platform is a GOOS/GOARCH pair to build for.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// DefaultPlatforms are the platforms a release is built for.
var DefaultPlatforms = []Platform{{"linux", "amd64"}, {"linux", "arm64"}}

// Options configure one release.
type Options struct {
	// Repo is the git work tree to release from; the build uses Commit's tree, not the
	// work tree's files.
	Repo string
	// Commit is the git revision to build (default HEAD).
	Commit string
	// Version is the release version, vMAJOR.MINOR.PATCH[-pre].
	Version string
	// Out is the output folder (dist/); it is emptied first.
	Out string
	// Platforms default to DefaultPlatforms.
	Platforms []Platform
	// Binaries limit the release to these binary names (default: all).
	Binaries []string
	// Charts are chart folders relative to Repo (default charts/kollect, charts/kollect-crds);
	// an empty non-nil slice packages none.
	Charts []string
	// ToolsDir holds bin/helm, bin/cyclonedx-gomod and bin/cosign (deploy/tools/build.sh dir).
	ToolsDir string
	// SigningKey is an OpenSSH private key file to sign with; empty generates a fresh
	// ed25519 key pair for this release and deletes its private half afterwards.
	SigningKey string
	// CosignKey is a cosign private key file (its password in COSIGN_PASSWORD); empty
	// generates a fresh key pair for this release and deletes it afterwards.
	CosignKey string
	// Log receives progress lines (nil: none).
	Log func(format string, args ...any)
}

var versionRE = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$`)

func (o *Options) defaults() error {
	if !versionRE.MatchString(o.Version) {
		return fmt.Errorf("check version %q: want vMAJOR.MINOR.PATCH[-pre]", o.Version)
	}
	if o.Commit == "" {
		o.Commit = "HEAD"
	}
	if o.Platforms == nil {
		o.Platforms = DefaultPlatforms
	}
	if o.Charts == nil {
		o.Charts = []string{"charts/kollect", "charts/kollect-crds"}
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	if o.ToolsDir == "" {
		return fmt.Errorf("check options: ToolsDir is required (deploy/tools/build.sh dir)")
	}
	// Builds run in the extracted source tree: a relative Out (make release's
	// dist) must not resolve there.
	for _, p := range []*string{&o.Out, &o.ToolsDir} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return fmt.Errorf("check options: %w", err)
		}
		*p = abs
	}
	return nil
}

// Result lists what Run wrote, as file names inside Out.
type Result struct {
	Binaries, SBOMs, Provenance, Charts, Signatures []string
	// Archives are the command line's kubectl-kollect archives (CLIArchiveName).
	Archives []string
	// Images are the images in Out/ImagesDir, as listed in ImagesFile.
	Images []ImageRecord
	// Fingerprint is the SHA256 fingerprint of the release's OpenSSH public key.
	Fingerprint string
	// CosignKeySHA256 is the hex SHA-256 of the release's cosign public key file.
	CosignKeySHA256 string
}

// Run builds the release described by o into o.Out.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	src, err := checkout(ctx, o.Repo, o.Commit)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(src.Dir)
	if err := resetDir(o.Out); err != nil {
		return nil, err
	}
	bins, err := discover(src.Dir, o.Binaries)
	if err != nil {
		return nil, err
	}
	res, all := &Result{}, built{}
	for _, p := range o.Platforms {
		for _, b := range bins {
			path, err := releaseBinary(ctx, o, src, b, p, res)
			if err != nil {
				return nil, err
			}
			all.add(b, p, path)
		}
	}
	if err := releaseCLI(ctx, o, src, bins, all, res); err != nil {
		return nil, err
	}
	if err := releaseImages(o, src, all, res); err != nil {
		return nil, err
	}
	for _, c := range o.Charts {
		if err := releaseChart(ctx, o, src, c, res); err != nil {
			return nil, err
		}
	}
	if err := writeSums(o.Out); err != nil {
		return nil, err
	}
	if err := signRelease(ctx, o, res); err != nil {
		return nil, err
	}
	return res, nil
}

// releaseBinary builds one binary for one platform, then its SBOM and
// provenance, and returns the binary's path.
func releaseBinary(ctx context.Context, o Options, src *Source, b Binary, p Platform, res *Result) (string, error) {
	name := fmt.Sprintf("%s_%s_%s_%s", b.Name, o.Version, p.OS, p.Arch)
	out := filepath.Join(o.Out, name)
	o.Log("build %s (%s)", name, b.Package)
	if err := Build(ctx, BuildSpec{Dir: src.Dir, Package: b.Package, Platform: p,
		Version: o.Version, Commit: src.Commit, Out: out}); err != nil {
		return "", err
	}
	sbom := name + ".cdx.json"
	if err := writeSBOM(ctx, o.ToolsDir, out, o.Version, filepath.Join(o.Out, sbom)); err != nil {
		return "", err
	}
	prov := name + ".intoto.json"
	st, err := binaryProvenance(out, b, p, o.Version, src)
	if err != nil {
		return "", err
	}
	if err := writeJSON(filepath.Join(o.Out, prov), st); err != nil {
		return "", err
	}
	res.Binaries = append(res.Binaries, name)
	res.SBOMs = append(res.SBOMs, sbom)
	res.Provenance = append(res.Provenance, prov)
	return out, nil
}

// resetDir empties dir, creating it if needed.
func resetDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("empty %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

// sortedFiles lists the regular files of dir, sorted.
func sortedFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}
