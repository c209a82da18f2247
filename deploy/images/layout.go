package images

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// RefNameAnnotation names an index inside an OCI layout (the layout spec's
// org.opencontainers.image.ref.name): "<binary>:<version>".
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout writes the indexes, keyed by binary name, into a fresh OCI
// image layout at dir (emptied first), each named "<binary>:<version>".
func WriteLayout(dir, version string, idxs map[string]v1.ImageIndex) (layout.Path, error) {
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("empty %s: %w", dir, err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return "", fmt.Errorf("create layout %s: %w", dir, err)
	}
	for _, n := range sortedNames(idxs) {
		err := p.AppendIndex(idxs[n], layout.WithAnnotations(map[string]string{RefNameAnnotation: n + ":" + version}))
		if err != nil {
			return "", fmt.Errorf("write %s into %s: %w", n, dir, err)
		}
	}
	return p, nil
}

// Push pushes each index to <prefix>/<binary>:<version> with the credentials
// of the local keychain (docker config, as every registry client), and
// returns the pushed references with their digests.
func Push(ctx context.Context, prefix, version string, idxs map[string]v1.ImageIndex, opts ...remote.Option) ([]string, error) {
	var refs []string
	for _, n := range sortedNames(idxs) {
		ref, err := PushTo(ctx, prefix+"/"+n+":"+version, idxs[n], opts...)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

func sortedNames(idxs map[string]v1.ImageIndex) []string {
	names := make([]string, 0, len(idxs))
	for n := range idxs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// PushTo pushes one index to exactly ref (a tag or repository) and returns
// the reference by digest.
func PushTo(ctx context.Context, ref string, idx v1.ImageIndex, opts ...remote.Option) (string, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return "", fmt.Errorf("push %s: %w", ref, err)
	}
	opts = append([]remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)}, opts...)
	if err := remote.WriteIndex(r, idx, opts...); err != nil {
		return "", fmt.Errorf("push %s: %w", r, err)
	}
	d, err := idx.Digest()
	if err != nil {
		return "", fmt.Errorf("push %s: %w", r, err)
	}
	return r.Context().Digest(d.String()).String(), nil
}
