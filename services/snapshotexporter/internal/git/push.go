package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
)

// errStale is a push the remote refused because the branch is not at the
// tip the export was built on (another writer moved it).
var errStale = errors.New("the branch moved since the export was built on it")

// push sends a pack of exactly objs, read from src, and moves the branch from m's tip to
// commit: a compare-and-set, so that a writer that built on an older tip
// never overwrites a newer one (errStale). With force the branch is set
// whatever it holds. On success commit is m's tip.
func (m *mirror) push(ctx context.Context, branch string, commit, root plumbing.Hash, objs []plumbing.Hash,
	src storer.EncodedObjectStorer, auth transport.AuthMethod, force bool,
) error {
	ep, err := transport.NewEndpoint(m.endpoint)
	if err != nil {
		return err
	}
	ep.Proxy = m.proxy
	c, err := client.NewClient(ep)
	if err != nil {
		return err
	}
	sess, err := c.NewReceivePackSession(ep, auth)
	if err != nil {
		return err
	}
	defer func() { _ = sess.Close() }()
	adv, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return err
	}
	ref := plumbing.NewBranchReferenceName(branch)
	current := adv.References[ref.String()]
	if current != m.tip && !force {
		return errStale
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(adv.Capabilities)
	req.Commands = []*packp.Command{{Name: ref, Old: current, New: commit}}
	rd, wr := io.Pipe()
	req.Packfile = rd
	encoded := make(chan error, 1)
	go func() {
		// Window 0: no delta search; the objects are few, and the server
		// compresses them its own way when it repacks.
		_, err := packfile.NewEncoder(wr, src, false).Encode(objs, 0)
		encoded <- wr.CloseWithError(err)
	}()
	report, err := sess.ReceivePack(ctx, req)
	_ = rd.Close()
	if encErr := <-encoded; err == nil && encErr != nil {
		err = encErr
	}
	if err != nil {
		return err
	}
	if report != nil {
		if err := report.Error(); err != nil {
			if report.UnpackStatus == "ok" {
				return fmt.Errorf("%w: %w", errStale, err)
			}
			return err
		}
	}
	m.tip, m.root = commit, root
	return nil
}

// diffTrees adds to out the path of every file that differs between tree
// a of sa and tree b of sb (zero: empty), reading only the subtrees whose
// hashes differ.
func diffTrees(sa objects, a plumbing.Hash, sb objects, b plumbing.Hash, prefix string, out *[]string) error {
	if a == b {
		return nil
	}
	ea, err := entries(sa, a)
	if err != nil {
		return err
	}
	eb, err := entries(sb, b)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(ea)+len(eb))
	for n := range ea {
		names = append(names, n)
	}
	for n := range eb {
		if _, ok := ea[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		x, y := ea[n], eb[n]
		if x.Hash == y.Hash && x.Mode == y.Mode {
			continue
		}
		var xd, yd plumbing.Hash
		if x.Mode == filemode.Dir {
			xd = x.Hash
		}
		if y.Mode == filemode.Dir {
			yd = y.Hash
		}
		if isFile(x) || isFile(y) {
			*out = append(*out, prefix+n)
		}
		if xd != yd {
			if err := diffTrees(sa, xd, sb, yd, prefix+n+"/", out); err != nil {
				return err
			}
		}
	}
	return nil
}

// isFile reports whether e is present and not a folder.
func isFile(e object.TreeEntry) bool { return e.Mode != 0 && e.Mode != filemode.Dir }

// entries returns the entries of tree h by name; none for the zero hash.
func entries(o objects, h plumbing.Hash) (map[string]object.TreeEntry, error) {
	out := map[string]object.TreeEntry{}
	if h.IsZero() {
		return out, nil
	}
	t, err := object.GetTree(o.s, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	for _, e := range t.Entries {
		out[e.Name] = e
	}
	return out, nil
}
