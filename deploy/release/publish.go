package release

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"kollect.dev/kollect/deploy/images"
)

// PublishOptions configure the publication of a release folder built by Run.
type PublishOptions struct {
	// Dist is the release folder (make release's dist/).
	Dist string
	// Registry is the registry prefix: images go to <Registry>/<name>:<tag>,
	// charts to oci://<Registry>/charts/<chart>:<version>.
	Registry string
	// ToolsDir holds bin/helm and bin/cosign.
	ToolsDir string
	// CosignKey is the cosign private key that signs the pushed images (its
	// password in COSIGN_PASSWORD). Required: a signature by a key generated
	// for the push could not be checked by anyone.
	CosignKey string
	// PlainHTTP talks HTTP to the registry (a local or test registry).
	PlainHTTP bool
	// Log receives progress lines (nil: none).
	Log func(format string, args ...any)
}

// Published is what Publish pushed.
type Published struct {
	// Images are the pushed images by digest, signed.
	Images []string
	// Charts are the pushed charts as oci:// references with their version.
	Charts []string
}

// Publish pushes a release's images and charts to a registry and signs the
// images there with cosign (a signature per index and per platform image,
// no transparency log). It first checks every artifact against SHA256SUMS,
// so what it pushes is what the release's signatures cover; the images are
// pushed by the digests images.json lists, from the release's OCI layout.
func Publish(ctx context.Context, o PublishOptions) (*Published, error) {
	if o.Registry == "" || o.CosignKey == "" {
		return nil, fmt.Errorf("publish: a registry and a cosign key are required")
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	if err := checkSums(o.Dist); err != nil {
		return nil, err
	}
	var records []ImageRecord
	b, err := os.ReadFile(filepath.Join(o.Dist, ImagesFile))
	if err != nil {
		return nil, fmt.Errorf("publish: read the image list: %w", err)
	}
	if err := json.Unmarshal(b, &records); err != nil {
		return nil, fmt.Errorf("publish: parse %s: %w", ImagesFile, err)
	}
	lp, err := layout.FromPath(filepath.Join(o.Dist, ImagesDir))
	if err != nil {
		return nil, fmt.Errorf("publish: open the image layout: %w", err)
	}
	root, err := lp.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("publish: read the image layout: %w", err)
	}
	var nameOpts []name.Option
	if o.PlainHTTP {
		nameOpts = append(nameOpts, name.Insecure)
	}
	out := &Published{}
	for _, r := range records {
		h, err := v1.NewHash(r.Digest)
		if err != nil {
			return nil, fmt.Errorf("publish: image %s: %w", r.Name, err)
		}
		idx, err := root.ImageIndex(h)
		if err != nil {
			return nil, fmt.Errorf("publish: image %s %s is not in the layout: %w", r.Name, r.Digest, err)
		}
		ref, err := pushIndex(ctx, o.Registry+"/"+r.Name+":"+r.Tag, idx, nameOpts)
		if err != nil {
			return nil, err
		}
		o.Log("pushed %s", ref)
		out.Images = append(out.Images, ref)
	}
	if err := SignImages(ctx, o.ToolsDir, o.CosignKey, o.PlainHTTP, out.Images, o.Log); err != nil {
		return nil, err
	}
	charts, err := pushCharts(ctx, o)
	if err != nil {
		return nil, err
	}
	out.Charts = charts
	return out, nil
}

// pushIndex pushes one index to ref and returns the reference by digest.
func pushIndex(ctx context.Context, ref string, idx v1.ImageIndex, opts []name.Option) (string, error) {
	if len(opts) == 0 {
		return images.PushTo(ctx, ref, idx)
	}
	r, err := name.ParseReference(ref, opts...)
	if err != nil {
		return "", fmt.Errorf("push %s: %w", ref, err)
	}
	if err := remote.WriteIndex(r, idx, remote.WithContext(ctx)); err != nil {
		return "", fmt.Errorf("push %s: %w", ref, err)
	}
	d, err := idx.Digest()
	if err != nil {
		return "", err
	}
	return r.Context().Digest(d.String()).String(), nil
}

// SignImages signs pushed images (references by digest) with cosign: each
// index and, with --recursive, every platform image it holds. The signatures
// are stored in the registry next to the images; no transparency log is
// written. tools holds bin/cosign; key's password is in COSIGN_PASSWORD.
func SignImages(ctx context.Context, tools, key string, plainHTTP bool, refs []string, log func(string, ...any)) error {
	cosign := filepath.Join(tools, "bin", "cosign")
	for _, ref := range refs {
		args := []string{"sign", "--yes", "--recursive", "--key", key, "--tlog-upload=false"}
		if plainHTTP {
			args = append(args, "--allow-http-registry", "--allow-insecure-registry")
		}
		if _, err := runEnv(ctx, "", os.Environ(), cosign, append(args, ref)...); err != nil {
			return fmt.Errorf("publish: sign %s: %w", ref, err)
		}
		log("signed %s", ref)
	}
	return nil
}

// pushCharts pushes every packaged chart of the release with helm push.
func pushCharts(ctx context.Context, o PublishOptions) ([]string, error) {
	tgzs, err := filepath.Glob(filepath.Join(o.Dist, "*.tgz"))
	if err != nil {
		return nil, err
	}
	helm := filepath.Join(o.ToolsDir, "bin", "helm")
	target := "oci://" + o.Registry + "/charts"
	var pushed []string
	for _, tgz := range tgzs {
		args := []string{"push", tgz, target}
		if o.PlainHTTP {
			args = append(args, "--plain-http")
		}
		if _, err := run(ctx, "", helm, args...); err != nil {
			return nil, fmt.Errorf("publish: push chart %s: %w", filepath.Base(tgz), err)
		}
		chart := strings.TrimSuffix(filepath.Base(tgz), ".tgz")
		o.Log("pushed chart %s to %s", chart, target)
		pushed = append(pushed, target+"/"+chart)
	}
	return pushed, nil
}

// checkSums checks every file SHA256SUMS lists, and that it lists the image
// list and every chart: Publish pushes nothing the release's signatures do
// not cover.
func checkSums(dist string) error {
	f, err := os.Open(filepath.Join(dist, SumsFile)) //nolint:gosec // G304: the release folder the user names
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, file, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return fmt.Errorf("publish: %s: malformed line %q", SumsFile, sc.Text())
		}
		got, err := fileSHA256(filepath.Join(dist, file))
		if err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		if got != sum {
			return fmt.Errorf("publish: %s does not match %s: the release folder was changed after it was built", file, SumsFile)
		}
		listed[file] = true
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("publish: read %s: %w", SumsFile, err)
	}
	tgzs, _ := filepath.Glob(filepath.Join(dist, "*.tgz"))
	for _, p := range append(tgzs, filepath.Join(dist, ImagesFile)) {
		if !listed[filepath.Base(p)] {
			return fmt.Errorf("publish: %s is not listed in %s", filepath.Base(p), SumsFile)
		}
	}
	return nil
}
