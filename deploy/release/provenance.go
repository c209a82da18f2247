package release

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// In-toto and SLSA identifiers of the provenance this package writes.
const (
	StatementType  = "https://in-toto.io/Statement/v1"
	PredicateType  = "https://slsa.dev/provenance/v1"
	BuilderID      = "https://kollect.dev/release/make-release@v1"
	GoBuildType    = "https://kollect.dev/release/go-build@v1"
	HelmBuildType  = "https://kollect.dev/release/helm-package@v1"
	ImageBuildType = "https://kollect.dev/release/oci-image@v1"
	ModuleH1Digest = "goModuleH1" // the go.sum h1: hash of a module, verbatim
)

// Statement is an in-toto Statement v1 carrying a SLSA provenance v1 predicate.
type Statement struct {
	Type          string     `json:"_type"`
	Subject       []Resource `json:"subject"`
	PredicateType string     `json:"predicateType"`
	Predicate     Provenance `json:"predicate"`
}

// Resource is an in-toto ResourceDescriptor.
type Resource struct {
	Name   string            `json:"name,omitempty"`
	URI    string            `json:"uri,omitempty"`
	Digest map[string]string `json:"digest"`
}

// Provenance is the SLSA provenance v1 predicate.
type Provenance struct {
	BuildDefinition BuildDefinition `json:"buildDefinition"`
	RunDetails      RunDetails      `json:"runDetails"`
}

// BuildDefinition says what was built, how, and from which materials.
type BuildDefinition struct {
	BuildType            string         `json:"buildType"`
	ExternalParameters   map[string]any `json:"externalParameters"`
	InternalParameters   map[string]any `json:"internalParameters"`
	ResolvedDependencies []Resource     `json:"resolvedDependencies"`
}

// RunDetails names the builder. Timestamps are left out so a rebuild is byte-identical.
type RunDetails struct {
	Builder Builder `json:"builder"`
}

// Builder identifies the release tooling and the Go toolchain.
type Builder struct {
	ID      string            `json:"id"`
	Version map[string]string `json:"version"`
}

// sourceResource is the commit the release was built from.
func sourceResource(src *Source) Resource {
	uri := "git+" + src.Remote
	if src.Remote == "" {
		uri = "git+kollect.dev/kollect"
	}
	return Resource{URI: uri + "@" + src.Commit, Digest: map[string]string{"gitCommit": src.Commit}}
}

func builder() Builder {
	return Builder{ID: BuilderID, Version: map[string]string{"go": runtime.Version()}}
}

// binaryProvenance describes the binary at path: its digest, the build's parameters, the
// source commit, and every module linked into it with its go.sum hash (read from the
// binary's own build information, so the list is exactly what was linked).
func binaryProvenance(path string, b Binary, p Platform, version string, src *Source) (*Statement, error) {
	sum, err := fileSHA256(path)
	if err != nil {
		return nil, err
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read build info of %s: %w", path, err)
	}
	deps := []Resource{sourceResource(src)}
	for _, m := range info.Deps {
		if m.Replace != nil {
			m = m.Replace
		}
		deps = append(deps, Resource{URI: "pkg:golang/" + m.Path + "@" + m.Version,
			Digest: map[string]string{ModuleH1Digest: m.Sum}})
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	return &Statement{
		Type:          StatementType,
		Subject:       []Resource{{Name: filepath.Base(path), Digest: map[string]string{"sha256": sum}}},
		PredicateType: PredicateType,
		Predicate: Provenance{
			BuildDefinition: BuildDefinition{
				BuildType: GoBuildType,
				ExternalParameters: map[string]any{
					"version": version, "package": b.Package, "goos": p.OS, "goarch": p.Arch,
				},
				InternalParameters: map[string]any{
					"goVersion": info.GoVersion, "mainModule": info.Main.Path,
					"flags": BuildFlags(version, src.Commit), "env": BuildEnv(p), "buildSettings": settings,
				},
				ResolvedDependencies: deps,
			},
			RunDetails: RunDetails{Builder: builder()},
		},
	}, nil
}

// chartProvenance describes a packaged chart built from chartDir at the source commit.
func chartProvenance(path, chartDir, version string, src *Source) (*Statement, error) {
	sum, err := fileSHA256(path)
	if err != nil {
		return nil, err
	}
	return &Statement{
		Type:          StatementType,
		Subject:       []Resource{{Name: filepath.Base(path), Digest: map[string]string{"sha256": sum}}},
		PredicateType: PredicateType,
		Predicate: Provenance{
			BuildDefinition: BuildDefinition{
				BuildType:            HelmBuildType,
				ExternalParameters:   map[string]any{"version": version, "chart": chartDir},
				InternalParameters:   map[string]any{"chartVersion": strings.TrimPrefix(version, "v")},
				ResolvedDependencies: []Resource{sourceResource(src)},
			},
			RunDetails: RunDetails{Builder: builder()},
		},
	}, nil
}

// fileSHA256 returns the hex SHA-256 of a file.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path) //nolint:gosec // G304: paths are the release's own artifacts
	if err != nil {
		return "", fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeJSON writes v as indented JSON with a final newline.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil { //nolint:gosec // G306: release artifacts are public
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
