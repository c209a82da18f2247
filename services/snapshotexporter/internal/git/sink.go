package git

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// maxAttempts bounds the rebase-and-retry of a push another writer beat.
const maxAttempts = 5

// Trailer keys of every export commit.
const (
	TrailerRevision = "Kollect-Revision"
	TrailerChecksum = "Kollect-Checksum"
)

// Sink writes snapshots to one branch of a Git repository. It implements
// sink.Sink, sink.DeltaWriter, sink.Checker, sink.DriftChecker and
// sink.RowStreamer.
type Sink struct {
	b        *Backend
	m        *mirror
	endpoint string
	branch   string // spec.git.branch, "" for the remote's default
	force    bool
	prune    bool
	tree     tree.Spec
	message  string
	author   object.Signature
	auth     transport.AuthMethod
	// authWithoutSecret is spec.git.auth.type when the sink has no
	// secretRef and so talks to the remote without credentials.
	authWithoutSecret string
	http              http.RoundTripper // nil unless the endpoint is http(s)
	// layout names the tree spec, so that sinks of one branch with
	// other layouts keep their own indexes.
	layout string

	closeOnce sync.Once
}

// ctx returns ctx carrying the sink's HTTP transport.
func (s *Sink) ctx(ctx context.Context) context.Context {
	if s.http == nil {
		return ctx
	}
	return withTransport(ctx, s.http)
}

// Write commits s's files for its inventory and pushes them: nothing when
// the branch already holds this content, the snapshot is older than the
// branch's (and not a replay), or a deleted inventory left no files. A
// repair (s.Repair) first fetches the branch's tip, so that the files
// changed behind the mirror's back are written again.
func (s *Sink) Write(ctx context.Context, snap sink.Snapshot) error {
	return s.write(ctx, snap, false)
}

// WriteDelta applies snap.Delta: with a perResource layout whose index
// holds the delta's base, it renders and commits only the rows the delta
// names; otherwise it writes the full snapshot.
func (s *Sink) WriteDelta(ctx context.Context, snap sink.Snapshot) error {
	return s.write(ctx, snap, true)
}

func (s *Sink) write(ctx context.Context, snap sink.Snapshot, delta bool) error {
	inv := snap.Envelope.Inventory
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s to git %s: %w", inv, s.endpoint, err)
	}
	ctx = s.ctx(ctx)
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	branch, err := s.m.resolveBranch(ctx, s.auth)
	if err != nil {
		return s.classify(ctx, fmt.Sprintf("write %s to git %s", inv, s.endpoint), err)
	}
	op := fmt.Sprintf("write %s to git %s branch %s", inv, s.endpoint, branch)
	if snap.Repair && s.m.loaded {
		// The branch was found changed behind the mirror's back: plan
		// the repair on its tip as it is.
		if _, err := s.m.sync(ctx, branch, s.auth); err != nil {
			return s.classify(ctx, op, err)
		}
	}
	var ex *export
	defer func() { ex.release() }()
	for attempt := 1; ; attempt++ {
		err := s.attempt(ctx, branch, &snap, delta, &ex)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errStale) || s.force || attempt == maxAttempts || ctx.Err() != nil {
			return s.classify(ctx, op, err)
		}
		// Another writer moved the branch: build on its tip, planning
		// again only when it touched this inventory.
		changed, err := s.m.sync(ctx, branch, s.auth)
		if err != nil {
			return s.classify(ctx, op, err)
		}
		if ex != nil && ex.touchedBy(changed) {
			ex.release()
			ex = nil
		}
	}
}

// attempt plans the export once (ex) and commits it on the branch's tip.
func (s *Sink) attempt(ctx context.Context, branch string, snap *sink.Snapshot, delta bool, ex **export) error {
	if err := s.m.ensure(ctx, branch, s.auth); err != nil {
		return err
	}
	if *ex == nil {
		e, err := s.prepare(ctx, snap, delta)
		if err != nil || e == nil {
			return err
		}
		*ex = e
	}
	return s.commitAndPush(ctx, branch, *ex)
}

// Check lists the remote's references with the sink's credentials, apart
// from the mirror so that it never waits for an export.
func (s *Sink) Check(ctx context.Context) error {
	remote := gogit.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: remoteName, URLs: []string{s.endpoint}})
	_, err := remote.ListContext(s.ctx(ctx), &gogit.ListOptions{Auth: s.auth, ProxyOptions: s.m.proxy})
	if err == nil || errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil
	}
	return s.classify(ctx, "check git "+s.endpoint, err)
}

// Close releases the sink's mirror and idle connections.
func (s *Sink) Close(context.Context) error {
	s.closeOnce.Do(func() {
		s.b.release(s.m)
		closeIdle(s.http)
	})
	return nil
}

// subject renders the commit subject of an export.
func (s *Sink) subject(tmpl, cluster, namespace, name string, itemCount int, checksum string) string {
	if namespace == "" {
		namespace = tree.ClusterScoped
	}
	if len(checksum) > 12 {
		checksum = checksum[:12]
	}
	return strings.NewReplacer("{cluster}", cluster, "{namespace}", namespace, "{name}", name,
		"{itemCount}", strconv.Itoa(itemCount), "{checksum}", checksum).Replace(tmpl)
}

// signature is the sink's author at now.
func (s *Sink) signature() object.Signature {
	sig := s.author
	sig.When = time.Now()
	return sig
}
