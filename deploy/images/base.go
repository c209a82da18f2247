package images

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// UID and GID are the nonroot user and group every image runs as; the chart's
// pod security context names the same.
const (
	UID = 65532
	GID = 65532
)

// CABundlePath is where the images hold the CA bundle, Debian's path, which
// Go's crypto/x509 reads on Linux.
const CABundlePath = "/etc/ssl/certs/ca-certificates.crt"

// entry is one file or folder of a layer.
type entry struct {
	name     string
	mode     int64
	uid, gid int
	data     []byte // nil for a folder
}

// baseEntries are the base layer's files: no shell, no package manager.
func baseEntries(caBundle []byte) []entry {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", UID, GID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", GID)
	return []entry{
		{name: "etc/", mode: 0o755},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755},
		{name: "etc/ssl/certs/", mode: 0o755},
		{name: CABundlePath[1:], mode: 0o644, data: caBundle},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, uid: UID, gid: GID},
		{name: "root/", mode: 0o700},
		{name: "tmp/", mode: 0o1777},
		{name: "usr/", mode: 0o755},
		{name: "usr/local/", mode: 0o755},
		{name: "usr/local/bin/", mode: 0o755},
	}
}

// layer writes entries as a gzip-compressed OCI layer whose every header
// carries mtime and nothing that varies between machines.
func layer(entries []entry, mtime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: mtime.UTC().Truncate(time.Second), Format: tar.FormatPAX}
		if e.data == nil {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("write %s: %w", e.name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, fmt.Errorf("write %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close layer: %w", err)
	}
	b := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("build layer: %w", err)
	}
	return l, nil
}

// BaseLayer is the layer every image starts from: passwd and group with the
// nonroot user, caBundle at CABundlePath, /tmp and the binaries' folder.
func BaseLayer(caBundle []byte, mtime time.Time) (v1.Layer, error) {
	if len(caBundle) == 0 {
		return nil, fmt.Errorf("base layer: the CA bundle is empty (install Debian's ca-certificates)")
	}
	return layer(baseEntries(caBundle), mtime)
}
