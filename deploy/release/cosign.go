package release

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Cosign signatures sit next to the OpenSSH ones: the same files, signed with
// `cosign sign-blob` by a key pair (no transparency log, no network), for users
// whose pipelines verify with cosign.
const (
	// CosignPublicKeyFile is the release's cosign public key, written into Out.
	CosignPublicKeyFile = "kollect-release.cosign.pub"
	// CosignSignatureSuffix ends the name of a file's cosign signature.
	CosignSignatureSuffix = ".cosign.sig"
)

// cosignRelease signs files (names inside o.Out) with cosign and publishes
// the public key. Without o.CosignKey it generates a key pair with an empty
// password and deletes it afterwards; with one, cosign reads the key's
// password from COSIGN_PASSWORD as usual.
func cosignRelease(ctx context.Context, o Options, files []string, res *Result) error {
	cosign := filepath.Join(o.ToolsDir, "bin", "cosign")
	key, env := o.CosignKey, os.Environ()
	pubFile := filepath.Join(o.Out, CosignPublicKeyFile)
	if key == "" {
		tmp, err := os.MkdirTemp("", "kollect-release-cosign-")
		if err != nil {
			return fmt.Errorf("create key folder: %w", err)
		}
		defer os.RemoveAll(tmp) // the private half of a generated key never outlives the release
		env = append(env, "COSIGN_PASSWORD=")
		if _, err := runEnv(ctx, tmp, env, cosign, "generate-key-pair", "--output-key-prefix", "release"); err != nil {
			return err
		}
		key = filepath.Join(tmp, "release.key")
		if err := os.Rename(filepath.Join(tmp, "release.pub"), pubFile); err != nil {
			return fmt.Errorf("publish the cosign public key: %w", err)
		}
	} else if _, err := runEnv(ctx, "", env, cosign, "public-key", "--key", key, "--outfile", pubFile); err != nil {
		return err
	}
	digest, err := fileSHA256(pubFile)
	if err != nil {
		return err
	}
	res.CosignKeySHA256 = digest
	for _, n := range files {
		if _, err := runEnv(ctx, o.Out, env, cosign, "sign-blob", "--yes", "--key", key, "--tlog-upload=false",
			"--output-signature", n+CosignSignatureSuffix, n); err != nil {
			return err
		}
		res.Signatures = append(res.Signatures, n+CosignSignatureSuffix)
	}
	o.Log("signed %d files with cosign key sha256:%s", len(files), digest)
	return nil
}

// runEnv is run with an explicit environment.
func runEnv(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...) //nolint:gosec // G204: the release tool runs its own pinned tools with arguments it builds
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("run %s %s: %w: %s%s", filepath.Base(name), strings.Join(args, " "), err,
			stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}
