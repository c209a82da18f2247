package release

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Signature identity and namespace: ssh-keygen -Y verify must be given both.
const (
	SignerIdentity = "release@kollect.dev"
	SignNamespace  = "kollect-release"
	// PublicKeyFile and AllowedSignersFile are written into the release folder.
	PublicKeyFile      = "kollect-release.pub"
	AllowedSignersFile = "allowed_signers"
	// SumsFile lists the SHA-256 of every other artifact, in `sha256sum -c` format.
	SumsFile = "SHA256SUMS"
)

// run runs a tool and returns its standard output, with its output in the error.
func run(ctx context.Context, dir, name string, args ...string) (string, error) {
	return runEnv(ctx, dir, nil, name, args...)
}

// writeSBOM writes the CycloneDX SBOM of a built binary (modules read from its build
// information), without serial number or timestamp so that it is reproducible.
func writeSBOM(ctx context.Context, tools, binary, version, out string) error {
	tool := filepath.Join(tools, "bin", "cyclonedx-gomod")
	_, err := run(ctx, "", tool, "bin", "-json", "-noserial", "-notimestamp", "-std",
		"-version", version, "-output", out, binary)
	return err
}

// releaseChart packages a chart with the release's version and writes its provenance.
func releaseChart(ctx context.Context, o Options, src *Source, chart string, res *Result) error {
	helm := filepath.Join(o.ToolsDir, "bin", "helm")
	v := strings.TrimPrefix(o.Version, "v")
	o.Log("package chart %s %s", chart, v)
	if err := stampChartImages(filepath.Join(src.Dir, chart, "Chart.yaml"), o.Version); err != nil {
		return err
	}
	out, err := run(ctx, src.Dir, helm, "package", chart, "--version", v, "--app-version", o.Version,
		"--destination", o.Out)
	if err != nil {
		return err
	}
	i := strings.LastIndex(out, ": ")
	if i < 0 {
		return fmt.Errorf("package chart %s: no file name in %q", chart, out)
	}
	tgz := filepath.Base(strings.TrimSpace(out[i+2:]))
	st, err := chartProvenance(filepath.Join(o.Out, tgz), chart, o.Version, src)
	if err != nil {
		return err
	}
	prov := tgz + ".intoto.json"
	if err := writeJSON(filepath.Join(o.Out, prov), st); err != nil {
		return err
	}
	res.Charts = append(res.Charts, tgz)
	res.Provenance = append(res.Provenance, prov)
	return nil
}

// writeSums writes SHA256SUMS over every file already in dir.
func writeSums(dir string) error {
	names, err := sortedFiles(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, n := range names {
		sum, err := fileSHA256(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	if err := os.WriteFile(filepath.Join(dir, SumsFile), []byte(b.String()), 0o644); err != nil { //nolint:gosec // G306: public artifact
		return fmt.Errorf("write %s: %w", SumsFile, err)
	}
	return nil
}

// signRelease signs SHA256SUMS, every SBOM and every provenance statement with
// ssh-keygen -Y sign, and publishes the public key and an allowed_signers file;
// then signs the same files with cosign (cosignRelease).
func signRelease(ctx context.Context, o Options, res *Result) error {
	key := o.SigningKey
	if key == "" {
		tmp, err := os.MkdirTemp("", "kollect-release-key-")
		if err != nil {
			return fmt.Errorf("create key folder: %w", err)
		}
		defer os.RemoveAll(tmp) // the private half of a generated key never outlives the release
		key = filepath.Join(tmp, "release_ed25519")
		if _, err := run(ctx, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", SignerIdentity, "-f", key); err != nil {
			return err
		}
	}
	pub, err := run(ctx, "", "ssh-keygen", "-y", "-f", key)
	if err != nil {
		return err
	}
	fields := strings.Fields(pub)
	if len(fields) < 2 {
		return fmt.Errorf("read public key of %s: unexpected %q", key, pub)
	}
	pubLine := fields[0] + " " + fields[1] + " " + SignerIdentity + "\n"
	signers := fmt.Sprintf("%s namespaces=%q %s %s\n", SignerIdentity, SignNamespace, fields[0], fields[1])
	for name, data := range map[string]string{PublicKeyFile: pubLine, AllowedSignersFile: signers} {
		if err := os.WriteFile(filepath.Join(o.Out, name), []byte(data), 0o644); err != nil { //nolint:gosec // G306: public key
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	fp, err := run(ctx, "", "ssh-keygen", "-l", "-E", "sha256", "-f", filepath.Join(o.Out, PublicKeyFile))
	if err != nil {
		return err
	}
	if f := strings.Fields(fp); len(f) > 1 {
		res.Fingerprint = f[1]
	}
	toSign := append(append([]string{SumsFile}, res.SBOMs...), res.Provenance...)
	if len(res.Images) > 0 {
		toSign = append(toSign, ImagesFile)
	}
	for _, n := range toSign {
		if _, err := run(ctx, o.Out, "ssh-keygen", "-q", "-Y", "sign", "-f", key, "-n", SignNamespace, n); err != nil {
			return err
		}
		res.Signatures = append(res.Signatures, n+".sig")
	}
	o.Log("signed %d files with key %s", len(toSign), res.Fingerprint)
	return cosignRelease(ctx, o, toSign, res)
}
