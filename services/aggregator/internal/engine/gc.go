package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"kollect.dev/kollect/pkg/app"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// refs is the part of a snapshot event garbage collection reads.
type refs struct {
	Revision    uint64               `json:"revision"`
	Replay      json.RawMessage      `json:"replay"`
	CreatedAt   time.Time            `json:"createdAt"`
	Reason      busv1.SnapshotReason `json:"reason"`
	Bindings    []busv1.SinkRef      `json:"bindings"`
	ManifestRef *busv1.ObjectRef     `json:"manifestRef"`
	EnvelopeRef *busv1.ObjectRef     `json:"envelopeRef"`
	DeltaRef    *busv1.ObjectRef     `json:"deltaRef"`
}

// replay reports whether the event is a replay (it repeats an older
// revision and adds none).
func (r refs) replay() bool { return len(r.Replay) != 0 && string(r.Replay) != "null" }

// owned reports whether every object r references has an owner
// (bus.ParseObjectOwner): a manifest's chunks have its owner.
func (r refs) owned() bool {
	for _, ref := range []*busv1.ObjectRef{r.ManifestRef, r.EnvelopeRef, r.DeltaRef} {
		if ref == nil {
			continue
		}
		if _, ok := bus.ParseObjectOwner(ref.Name); !ok {
			return false
		}
	}
	return true
}

// retained is one event kept in an inventory's history.
type retained struct {
	seq  uint64
	refs refs
	// size is the event message's size in bytes.
	size int
}

// collect deletes every object of the envelope store that no retained
// snapshot event and no inventory's current view references, once it is
// older than the grace period, after trimming each inventory's history to
// its retention (trim). It runs on the engine's goroutine, so no publish stores
// an object while it decides.
func (e *Engine) collect(ctx context.Context) error {
	all := e.readsAll()
	history, others, err := e.histories(ctx, all)
	if err != nil {
		return err
	}
	for subject, evs := range history {
		if evs, err = e.trimPeriodic(ctx, evs); err != nil {
			return err
		}
		if history[subject], err = e.trim(ctx, subject, evs); err != nil {
			return err
		}
	}
	e.purgeOrphans(ctx, history)
	if err := e.enforceQuotas(ctx, history); err != nil {
		return err
	}
	keep := map[string]struct{}{}
	for subject, kept := range history {
		if err := e.noteHistory(ctx, subject, kept); err != nil {
			return err
		}
		for _, ev := range kept {
			if err := e.mark(ctx, ev.refs, keep); err != nil {
				return err
			}
		}
	}
	for _, kept := range others { // read for the objects without an owner they reference
		for _, ev := range kept {
			if ev.refs.owned() {
				continue // another shard's objects: it keeps them
			}
			if err := e.mark(ctx, ev.refs, keep); err != nil {
				return err
			}
		}
	}
	for _, st := range e.invs {
		if st.view != nil {
			live := map[string]struct{}{}
			st.view.Digests(live)
			name := bus.OwnerOf(st.name).Names(bus.ChunkObjectName)
			for d := range live {
				keep[name(d)] = struct{}{}
			}
		}
	}
	return e.sweep(ctx, keep, all)
}

// histories reads the references of every retained snapshot event of this
// engine's inventories (own) and, when all, of every other inventory
// (others), per subject, oldest first.
func (e *Engine) histories(ctx context.Context, all bool) (own, others map[string][]retained, err error) {
	own, others = map[string][]retained{}, map[string][]retained{}
	filters, err := e.historyFilters(ctx, all)
	if err != nil || len(filters) == 0 {
		return own, others, err
	}
	c, err := e.js.OrderedConsumer(ctx, bus.StreamSnapshots, jetstream.OrderedConsumerConfig{
		FilterSubjects: filters, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, nil, fmt.Errorf("read snapshot history: %w", err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read snapshot history: %w", err)
	}
	for pending := info.NumPending; pending > 0; {
		m, err := c.Next(jetstream.FetchContext(ctx))
		if err != nil {
			return nil, nil, fmt.Errorf("read snapshot history: %w", err)
		}
		md, err := m.Metadata()
		if err != nil {
			return nil, nil, fmt.Errorf("read snapshot history: %w", err)
		}
		pending = md.NumPending
		var r refs
		if err := json.Unmarshal(m.Data(), &r); err != nil {
			continue // not an event of ours: it references nothing
		}
		out := own
		if inv, err := bus.ParseSnapshotSubject(m.Subject()); err == nil && !e.owns(inv) {
			out = others
		}
		out[m.Subject()] = append(out[m.Subject()], retained{seq: md.Sequence.Stream, refs: r, size: len(m.Data())})
	}
	return own, others, nil
}

// mark adds the objects r references to keep: its envelope or delta, its
// manifest, the manifest's pages and their chunks. A page already kept was
// marked with its chunks, so revisions sharing pages cost one read each.
func (e *Engine) mark(ctx context.Context, r refs, keep map[string]struct{}) error {
	for _, ref := range []*busv1.ObjectRef{r.EnvelopeRef, r.DeltaRef} {
		if ref != nil {
			keep[ref.Name] = struct{}{}
		}
	}
	if r.ManifestRef == nil {
		return nil
	}
	keep[r.ManifestRef.Name] = struct{}{}
	return e.eachManifestObject(ctx, r.ManifestRef, func(name string, _ int64) bool {
		_, seen := keep[name]
		keep[name] = struct{}{}
		return !seen
	})
}

// manifestObjects is what one manifest object references: the pages of a
// paged manifest's root, or the chunks of a flat manifest or of a page.
type manifestObjects struct {
	pages  []busv1.Page
	chunks []busv1.Chunk
}

// eachManifestObject calls f with the name and size of every page and chunk
// the manifest ref references; when f returns false for a page, its chunks
// are skipped.
func (e *Engine) eachManifestObject(ctx context.Context, ref *busv1.ObjectRef, f func(name string, size int64) bool) error {
	root, err := e.manifestObjects(ref.Name, func() (manifestObjects, error) {
		m, err := e.loader.Root(ctx, ref)
		if err != nil {
			return manifestObjects{}, err
		}
		return manifestObjects{pages: m.Pages, chunks: m.Chunks}, nil
	})
	if err != nil {
		return err
	}
	chunks := func(cs []busv1.Chunk) {
		for _, c := range cs {
			f(bus.ChunkObjectNameIn(ref.Name, c.Digest), c.Bytes)
		}
	}
	chunks(root.chunks)
	for _, p := range root.pages {
		name := bus.PageObjectNameIn(ref.Name, p.Digest)
		if !f(name, p.Size) {
			continue
		}
		page, err := e.manifestObjects(name, func() (manifestObjects, error) {
			cs, err := e.loader.Page(ctx, ref, p)
			return manifestObjects{chunks: cs}, err
		})
		if err != nil {
			return err
		}
		chunks(page.chunks)
	}
	return nil
}

// manifestObjects returns what the manifest or page called name references,
// from the cache (they never change) or read. An object already gone
// references nothing any more.
func (e *Engine) manifestObjects(name string, read func() (manifestObjects, error)) (manifestObjects, error) {
	if o, ok := e.manifests[name]; ok {
		return o, nil
	}
	o, err := read()
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return manifestObjects{}, nil
	}
	if err != nil {
		return manifestObjects{}, err
	}
	e.manifests[name] = o
	return o, nil
}

// sweep deletes the objects of this engine's owners (and, when all, those
// without an owner) not in keep that are older than the grace period.
func (e *Engine) sweep(ctx context.Context, keep map[string]struct{}, all bool) error {
	obs, err := e.js.ObjectStore(ctx, bus.ObjectStoreEnvelopes)
	if err != nil {
		return fmt.Errorf("open object store %s: %w", bus.ObjectStoreEnvelopes, err)
	}
	infos, err := bus.ListObjects(ctx, obs, bus.ListAttempt)
	if err != nil {
		return fmt.Errorf("list object store %s: %w", bus.ObjectStoreEnvelopes, err)
	}
	cutoff := time.Now().Add(-e.opts.GCGrace) // object times are the server's wall clock
	var gone []string
	unowned := 0
	for _, in := range infos {
		if _, ok := bus.ParseObjectOwner(in.Name); !ok {
			unowned++
		}
		if _, ok := keep[in.Name]; ok || in.ModTime.After(cutoff) || !e.ownsObject(in.Name, all) {
			continue
		}
		if _, ok := bus.ParseObjectOwner(in.Name); !ok {
			unowned--
		}
		gone = append(gone, in.Name)
		delete(e.manifests, in.Name)
	}
	e.unownedLeft = unowned > 0
	if len(gone) == 0 {
		return nil
	}
	// Deleting thousands of objects takes seconds: it runs beside the
	// loop, and a publish that needs one of them again writes it after
	// its deletion. It stops with the engine, and Run waits for it: once a
	// shard moved, only its new holder, whose writer does not know of this
	// deletion, may delete its objects (the rest go at the next collection).
	log, m := e.opts.Log, e.m
	done := make(chan struct{})
	if e.pub.Writer().Delete(ctx, gone, func(n int, err error) {
		defer close(done)
		m.collected(n)
		if err != nil && ctx.Err() == nil {
			log.Error(err, "collect unreferenced snapshot objects")
		}
		log.V(1).Info("collected unreferenced snapshot objects", "objects", n)
	}) {
		e.sweeping = done
	}
	return nil
}

// sweepDone waits until the last collection's deletions stopped.
func (e *Engine) sweepDone() {
	if e.sweeping != nil {
		<-e.sweeping
	}
}

// trim drops the oldest events of one inventory's history beyond its
// retention (limits): more distinct revisions than Revisions, older than
// MaxAge, or keeping in total more than MaxBytes on the bus (the events
// themselves and what they reference, footprint). The newest event always
// stays. It returns the events kept.
func (e *Engine) trim(ctx context.Context, subject string, evs []retained) ([]retained, error) {
	lim := e.limits(subject)
	if len(evs) < 2 || lim == (busv1.HistoryLimits{}) {
		return evs, nil
	}
	fp, err := e.footprint(ctx, evs)
	if err != nil {
		return nil, err
	}
	now := e.clock.Now()
	cut := -1
	for i := len(evs) - 2; i >= 0 && cut < 0; i-- {
		r := evs[i].refs
		if lim.Revisions > 0 && fp[i].revisions > lim.Revisions ||
			lim.MaxAge.Duration > 0 && !r.CreatedAt.IsZero() && now.Sub(r.CreatedAt) > lim.MaxAge.Duration ||
			lim.MaxBytes > 0 && fp[i].bytes > lim.MaxBytes {
			cut = i
		}
	}
	if cut < 0 {
		return evs, nil
	}
	if err := e.purgeBefore(ctx, subject, evs[cut+1].seq); err != nil {
		return nil, err
	}
	e.opts.Log.V(1).Info("trimmed a snapshot history to its retention", app.KeySubject, subject, "events", cut+1)
	return evs[cut+1:], nil
}

// purgeBefore deletes the events of subject below sequence seq.
func (e *Engine) purgeBefore(ctx context.Context, subject string, seq uint64) error {
	s, err := e.js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
	}
	if err := s.Purge(ctx, jetstream.WithPurgeSubject(subject), jetstream.WithPurgeSequence(seq)); err != nil {
		return fmt.Errorf("trim history of %s: %w", subject, err)
	}
	return nil
}

// cost is what keeping some events of a history costs on the bus.
type cost struct {
	// bytes are the event messages' and the objects they reference, each
	// object counted once.
	bytes int64
	// revisions are the distinct revisions (replays add none).
	revisions int64
}

// footprint returns, for each i, the cost of keeping evs[i:]; the extra
// last element is zero.
func (e *Engine) footprint(ctx context.Context, evs []retained) ([]cost, error) {
	out := make([]cost, len(evs)+1)
	seen := map[string]struct{}{}
	revs := map[uint64]struct{}{}
	for i := len(evs) - 1; i >= 0; i-- {
		r := evs[i].refs
		n, err := e.newBytes(ctx, r, seen)
		if err != nil {
			return nil, err
		}
		if !r.replay() {
			revs[r.Revision] = struct{}{}
		}
		out[i] = cost{bytes: out[i+1].bytes + n + int64(evs[i].size), revisions: int64(len(revs))}
	}
	return out, nil
}

// limits is the retention of the inventory whose history is on subject:
// its spec.history, else the engine's defaults, each lowered to its
// Scope's cap. An inventory without config (an orphan) keeps the defaults.
func (e *Engine) limits(subject string) busv1.HistoryLimits {
	def := busv1.HistoryLimits{Revisions: e.opts.HistoryRevisions,
		MaxAge: busv1.Duration{Duration: e.opts.HistoryMaxAge}, MaxBytes: e.opts.HistoryMaxBytes}
	name, err := bus.ParseSnapshotSubject(subject)
	if err != nil {
		return def
	}
	st, ok := e.invs[name]
	if !ok || st.cfg == nil {
		return def
	}
	return EffectiveHistory(st.cfg.History, st.cfg.HistoryCap, def)
}

// EffectiveHistory is the retention an inventory gets: each field it asked
// for, else the default, lowered to the cap where the cap sets one.
func EffectiveHistory(asked, limit, def busv1.HistoryLimits) busv1.HistoryLimits {
	pick := func(a, c, d int64) int64 {
		v := a
		if v <= 0 {
			v = d
		}
		if c > 0 && (v <= 0 || v > c) {
			v = c
		}
		return v
	}
	return busv1.HistoryLimits{
		Revisions: pick(asked.Revisions, limit.Revisions, def.Revisions),
		MaxAge: busv1.Duration{Duration: time.Duration(pick(int64(asked.MaxAge.Duration),
			int64(limit.MaxAge.Duration), int64(def.MaxAge.Duration)))},
		MaxBytes: pick(asked.MaxBytes, limit.MaxBytes, def.MaxBytes),
	}
}

// newBytes is the size of what r references that seen does not hold yet.
func (e *Engine) newBytes(ctx context.Context, r refs, seen map[string]struct{}) (int64, error) {
	var n int64
	add := func(name string, size int64) {
		if _, ok := seen[name]; !ok {
			seen[name] = struct{}{}
			n += size
		}
	}
	for _, ref := range []*busv1.ObjectRef{r.EnvelopeRef, r.DeltaRef, r.ManifestRef} {
		if ref != nil {
			add(ref.Name, ref.Size)
		}
	}
	if r.ManifestRef != nil {
		err := e.eachManifestObject(ctx, r.ManifestRef, func(name string, size int64) bool {
			_, had := seen[name]
			add(name, size)
			return !had
		})
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// GCMinInterval is the shortest time between two collections.
const GCMinInterval = 30 * time.Second

// gcDue runs garbage collection when GCInterval has passed, or sooner when
// GCAfterBytes were written since the last one.
func (e *Engine) gcDue(ctx context.Context, now time.Time) {
	if e.opts.GCInterval <= 0 {
		return
	}
	soon := e.opts.GCAfterBytes > 0 && e.written >= e.opts.GCAfterBytes && now.Sub(e.gcLast) >= GCMinInterval
	if !soon && now.Before(e.gcAt) {
		return
	}
	e.gcAt, e.gcLast, e.written = now.Add(e.opts.GCInterval), now, 0
	defer e.observe(Event{Kind: EventCollected})
	if err := e.collect(ctx); err != nil {
		e.opts.Log.Error(err, "collect unreferenced snapshot objects")
	}
}
