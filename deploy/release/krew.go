package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
	"time"
)

// CLIPlatforms are the platforms the kollect command line is built for
// besides Options.Platforms: people run it on their laptops. Services are
// built for Options.Platforms only.
var CLIPlatforms = []Platform{{"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"}}

// DownloadURL is where a release's files are published; %s is the version.
const DownloadURL = "https://github.com/kollect-dev/kollect/releases/download/%s"

// KrewManifestFile is the krew plugin manifest a release writes into Out:
// `kubectl krew install --manifest=kollect.krew.yaml` (or the krew-index
// copy of it) installs kubectl-kollect from the release's archives.
const KrewManifestFile = "kollect.krew.yaml"

// CLIArchiveName is the archive of the command line for p: it holds
// kubectl-kollect (kubectl-kollect.exe on Windows) and LICENSE.
func CLIArchiveName(version string, p Platform) string {
	return fmt.Sprintf("kubectl-kollect_%s_%s_%s.tar.gz", version, p.OS, p.Arch)
}

// pluginBinary is the file name kubectl looks for on p.
func pluginBinary(p Platform) string {
	if p.OS == "windows" {
		return "kubectl-kollect.exe"
	}
	return "kubectl-kollect"
}

// writeCLIArchive packs bin (the kollect binary for p) and the source's
// LICENSE into Out/CLIArchiveName, reproducibly (fixed times and owners),
// and returns the archive's SHA-256.
func writeCLIArchive(out, srcDir, version string, p Platform, bin string, mtime time.Time) (string, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name, path string
		mode       int64
	}{{pluginBinary(p), bin, 0o755}, {"LICENSE", filepath.Join(srcDir, "LICENSE"), 0o644}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			return "", fmt.Errorf("archive %s: %w", f.name, err)
		}
		hdr := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return "", err
		}
		if _, err := tw.Write(data); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	path := filepath.Join(out, CLIArchiveName(version, p))
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil { //nolint:gosec // G306: public artifact
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return fileSHA256(path)
}

// KrewManifest renders the krew plugin manifest of version: one platform
// entry per archive, with its URL under DownloadURL and its SHA-256 (sums,
// by platform; a missing sum renders as zeros, which krew refuses).
func KrewManifest(version string, platforms []Platform, sums map[Platform]string) ([]byte, error) {
	type entry struct {
		OS, Arch, URI, Sha256, Bin string
	}
	var entries []entry
	for _, p := range platforms {
		sum := sums[p]
		if sum == "" {
			sum = strings.Repeat("0", 64)
		}
		entries = append(entries, entry{p.OS, p.Arch, fmt.Sprintf(DownloadURL, version) + "/" + CLIArchiveName(version, p), sum, pluginBinary(p)})
	}
	var b bytes.Buffer
	err := krewTemplate.Execute(&b, map[string]any{"Version": version, "Platforms": entries})
	return b.Bytes(), err
}

var krewTemplate = template.Must(template.New("krew").Parse(`apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: kollect
spec:
  version: {{ .Version }}
  homepage: https://kollect.dev
  shortDescription: Collect a declared inventory of Kubernetes objects
  description: |
    kubectl kollect runs Kollect's selection and extraction with your own
    credentials (collect, ad hoc with --kind/--attr or from a folder of
    Kollect custom resources), validates and migrates Kollect resources
    offline, and shows an installed Kollect's inventories, sinks, targets,
    snapshots and dead letters. It takes kubectl's client flags.
  platforms:
{{- range .Platforms }}
  - selector:
      matchLabels:
        os: {{ .OS }}
        arch: {{ .Arch }}
    uri: {{ .URI }}
    sha256: {{ .Sha256 }}
    files:
    - from: {{ .Bin }}
      to: .
    - from: LICENSE
      to: .
    bin: {{ .Bin }}
{{- end }}
`))

// releaseCLI builds the command line for CLIPlatforms too (with SBOM and
// provenance, as every binary), packs one archive per platform and writes
// the krew manifest naming them with their SHA-256. A release without the
// kollect binary (Options.Binaries) has none of these.
func releaseCLI(ctx context.Context, o Options, src *Source, bins []Binary, all built, res *Result) error {
	i := slices.IndexFunc(bins, func(b Binary) bool { return b.Name == "kollect" })
	if i < 0 {
		return nil
	}
	cli := bins[i]
	paths := map[Platform]string{}
	var platforms []Platform
	for _, p := range o.Platforms {
		if path := all[cli][p.String()]; path != "" {
			paths[p], platforms = path, append(platforms, p)
		}
	}
	for _, p := range CLIPlatforms {
		if _, ok := paths[p]; ok {
			continue
		}
		path, err := releaseBinary(ctx, o, src, cli, p, res)
		if err != nil {
			return err
		}
		paths[p], platforms = path, append(platforms, p)
	}
	sums := map[Platform]string{}
	for _, p := range platforms {
		sum, err := writeCLIArchive(o.Out, src.Dir, o.Version, p, paths[p], src.Time)
		if err != nil {
			return err
		}
		sums[p] = sum
		res.Archives = append(res.Archives, CLIArchiveName(o.Version, p))
	}
	manifest, err := KrewManifest(o.Version, platforms, sums)
	if err != nil {
		return fmt.Errorf("render %s: %w", KrewManifestFile, err)
	}
	if err := os.WriteFile(filepath.Join(o.Out, KrewManifestFile), manifest, 0o644); err != nil { //nolint:gosec // G306: public artifact
		return fmt.Errorf("write %s: %w", KrewManifestFile, err)
	}
	return nil
}
