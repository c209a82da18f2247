package replayer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"kollect.dev/kollect/pkg/app"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

// Options tune a Replayer.
type Options struct {
	// AckTimeout is how long one revision may take to be acknowledged by
	// the sink before it is published again; zero is 5 minutes.
	AckTimeout time.Duration
	// Attempts is how many times one revision is published before the
	// replay fails; zero is 3.
	Attempts int
	// HoldTTL is how long a backfill's hold on its binding's regular
	// exports lasts unless renewed (every third of it); zero is 2 minutes.
	HoldTTL time.Duration
	// ReportRetryMax is the longest pause between two failed reads of a
	// replay's last report, or publications of its outcome (the first
	// pause is a 64th of it); zero is 30 seconds.
	ReportRetryMax time.Duration
	// MaxReplays is how many replays run at once in the aggregator; zero
	// is 4. Others wait, queued, in arrival order.
	MaxReplays int
	// MaxReplaysPerNamespace is how many replays of one namespace run at
	// once; zero is 2.
	MaxReplaysPerNamespace int
	// RunAttempts is how many times one replay may start: a run interrupted
	// by a crash, a restart or a lost lease of its aggregator (found on
	// start as its own last report, Running) is followed by another, after
	// RunBackoff, until RunAttempts runs were interrupted; then the replay
	// fails. Zero is 3.
	RunAttempts int
	// RunBackoff is the pause before the second run of an interrupted
	// replay, doubled before each further run (at most an hour); zero is
	// 10 seconds.
	RunBackoff time.Duration
	// Owns, when set, restricts the Replayer to the replays of the
	// inventories it accepts (an aggregator shard's, which publishes their
	// snapshot events); nil runs every replay.
	Owns func(busv1.NamespacedName) bool
	// Log receives one line per replay finished or failed.
	Log logr.Logger
}

// Replayer runs the replay requests of the config bucket.
type Replayer struct {
	js    jetstream.JetStream
	opts  Options
	slots *slots
	// bindings serialises replays to the same binding: a replay holds its
	// binding's channel (capacity one) while it runs.
	mu       sync.Mutex
	bindings map[string]chan struct{}
}

// New returns a Replayer on js.
func New(js jetstream.JetStream, opts Options) *Replayer {
	if opts.AckTimeout <= 0 {
		opts.AckTimeout = 5 * time.Minute
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if opts.HoldTTL <= 0 {
		opts.HoldTTL = 2 * time.Minute
	}
	if opts.ReportRetryMax <= 0 {
		opts.ReportRetryMax = 30 * time.Second
	}
	if opts.MaxReplays <= 0 {
		opts.MaxReplays = 4
	}
	if opts.MaxReplaysPerNamespace <= 0 {
		opts.MaxReplaysPerNamespace = 2
	}
	if opts.RunAttempts <= 0 {
		opts.RunAttempts = 3
	}
	if opts.RunBackoff <= 0 {
		opts.RunBackoff = 10 * time.Second
	}
	return &Replayer{js: js, opts: opts, slots: newSlots(opts.MaxReplays, opts.MaxReplaysPerNamespace),
		bindings: map[string]chan struct{}{}}
}

// Run watches the replay keys and runs each request not yet finished, until
// ctx ends. A request whose key is deleted (its KollectReplay was) stops.
func (r *Replayer) Run(ctx context.Context) error {
	kv, err := r.js.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		return fmt.Errorf("open KV bucket %s: %w", bus.BucketConfig, err)
	}
	w, err := kv.WatchFiltered(ctx, []string{bus.ConfigKeyFilter(busv1.KindReplay)})
	if err != nil {
		return fmt.Errorf("watch replays in KV bucket %s: %w", bus.BucketConfig, err)
	}
	defer func() { _ = w.Stop() }()
	type running struct {
		uid    string
		cancel context.CancelFunc
	}
	active := map[string]running{}
	var wg sync.WaitGroup
	defer func() {
		for _, a := range active {
			a.cancel()
		}
		wg.Wait()
	}()
	for {
		var ent jetstream.KeyValueEntry
		select {
		case <-ctx.Done():
			return nil
		case ent = <-w.Updates():
		}
		if ent == nil {
			continue // the initial values were all delivered
		}
		key := ent.Key()
		var req busv1.ReplayRequest
		put := ent.Operation() == jetstream.KeyValuePut && json.Unmarshal(ent.Value(), &req) == nil &&
			(r.opts.Owns == nil || r.opts.Owns(req.Inventory))
		if a, ok := active[key]; ok && (!put || a.uid != req.UID) {
			a.cancel()
			delete(active, key)
		}
		if _, ok := active[key]; !put || ok {
			continue
		}
		rctx, cancel := context.WithCancel(ctx)
		active[key] = running{uid: req.UID, cancel: cancel}
		wg.Add(1)
		written := ent.Created()
		go func() {
			defer wg.Done()
			r.serve(rctx, req, written)
		}()
	}
}

// serve runs req, whose request was written at written, unless its last
// report says it already finished. Control deletes the request of a
// finished replay once it stored the phase, so a request is found finished
// here only in the window before that. Two cases are never taken as "not
// finished" (F9 of SECURITY-3): a report that cannot be read is read again
// until it can; a request older than reports are kept (the status
// stream's MaxAge) without a report may have finished unseen, and fails
// instead of running again. A last report of its own that is not finished
// counts the runs that were interrupted (F2): the replay runs again after
// a pause, or fails once RunAttempts runs were.
func (r *Replayer) serve(ctx context.Context, req busv1.ReplayRequest, written time.Time) {
	last, maxAge, err := r.lastReportWaiting(ctx, req)
	if err != nil {
		return // ctx ended
	}
	own := last != nil && last.UID == req.UID
	if own && (last.Phase == busv1.ReplaySucceeded || last.Phase == busv1.ReplayFailed) {
		r.opts.Log.V(1).Info("replay already finished, not run again", "replay", req.Namespace+"/"+req.Name, "phase", last.Phase)
		return
	}
	if !own && maxAge > 0 && time.Since(written) > maxAge {
		now := time.Now().UTC()
		r.reportOutcome(ctx, req, busv1.ReplayStatus{UID: req.UID, Phase: busv1.ReplayFailed, StartedAt: now, FinishedAt: now,
			Outcome: busv1.Outcome{Reason: v1alpha1.ReasonReplayFailed, Message: fmt.Sprintf(
				"the outcome of this replay is unknown: its request was written %s ago, its report is kept %s and is gone; "+
					"it is not run again, create a new KollectReplay", now.Sub(written).Round(time.Second), maxAge)}})
		r.opts.Log.Info("replay of unknown outcome failed, not run again", "replay", req.Namespace+"/"+req.Name)
		return
	}
	interrupted := 0
	if own {
		interrupted = last.Attempts
		if last.Phase == busv1.ReplayRunning {
			interrupted = max(interrupted, 1) // a report of a release that did not count
		}
	}
	if interrupted >= r.opts.RunAttempts {
		r.giveUp(ctx, req, *last, interrupted)
		return
	}
	if interrupted > 0 && !r.pause(ctx, req, interrupted) {
		return
	}
	queued := func(why string) {
		r.report(ctx, req, busv1.ReplayStatus{UID: req.UID, Phase: busv1.ReplayPending, Attempts: interrupted,
			Outcome: busv1.Outcome{Message: why}})
	}
	unlock, err := r.lockBinding(ctx, req, queued)
	if err != nil {
		return
	}
	defer unlock()
	release, err := r.slots.acquire(ctx, req.Namespace, queued)
	if err != nil {
		return
	}
	defer release()
	// Running before any history is read: a replay that crashes its
	// aggregator shows as Running, not Pending, and counts (F2).
	st := busv1.ReplayStatus{UID: req.UID, Phase: busv1.ReplayRunning, StartedAt: time.Now().UTC(), Attempts: interrupted + 1}
	r.report(ctx, req, st)
	st = r.run(ctx, req, st)
	if ctx.Err() != nil {
		return // stopped: the object is gone or the leader stepped down
	}
	r.reportOutcome(ctx, req, st)
	r.opts.Log.Info("replay finished", "replay", req.Namespace+"/"+req.Name, app.KeyInventory, req.Inventory.String(),
		app.KeySink, req.Sink.BindingName(), "phase", st.Phase, "revisions", st.RevisionsDone, app.KeyReason, st.Reason, "message", st.Message)
}

// giveUp fails a replay whose last report (last) shows that runs runs
// were interrupted, the most RunAttempts allows: it may be what crashes
// its aggregator.
func (r *Replayer) giveUp(ctx context.Context, req busv1.ReplayRequest, last busv1.ReplayStatus, runs int) {
	now := time.Now().UTC()
	st := last
	st.Phase, st.Attempts, st.FinishedAt = busv1.ReplayFailed, runs, now
	if st.StartedAt.IsZero() {
		st.StartedAt = now
	}
	st.Outcome = busv1.Outcome{Reason: v1alpha1.ReasonReplayFailed, Message: fmt.Sprintf(
		"this replay crashed its aggregator %d times: each of its %d runs was interrupted (the aggregator crashed, "+
			"was restarted or lost its lease), the most --replay-max-attempts allows; it is not run again: check the "+
			"aggregator's restarts (OOMKilled) and the size of the revisions, then create a new KollectReplay", runs, runs)}
	r.reportOutcome(ctx, req, st)
	r.opts.Log.Info("replay interrupted too often, failed", "replay", req.Namespace+"/"+req.Name, "runs", runs)
}

// pause waits before the next run of a replay whose runs were interrupted
// runs times (RunBackoff, doubled for each run after the first, at most an
// hour), reporting it Pending with why; false when ctx ended first.
func (r *Replayer) pause(ctx context.Context, req busv1.ReplayRequest, runs int) bool {
	d := r.opts.RunBackoff
	for i := 1; i < runs && d < time.Hour; i++ {
		d *= 2
	}
	d = min(d, time.Hour)
	r.report(ctx, req, busv1.ReplayStatus{UID: req.UID, Phase: busv1.ReplayPending, Attempts: runs,
		Outcome: busv1.Outcome{Message: fmt.Sprintf("run %d of at most %d was interrupted (its aggregator crashed, "+
			"was restarted or lost its lease); run %d starts at %s", runs, r.opts.RunAttempts, runs+1,
			time.Now().Add(d).UTC().Format(time.RFC3339))}})
	r.opts.Log.Info("interrupted replay runs again after a pause", "replay", req.Namespace+"/"+req.Name, "runs", runs, "pause", d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// lastReportWaiting is lastReport, read again after an error (with a
// growing pause, up to ReportRetryMax) until it succeeds or ctx ends.
func (r *Replayer) lastReportWaiting(ctx context.Context, req busv1.ReplayRequest) (*busv1.ReplayStatus, time.Duration, error) {
	pause := r.opts.ReportRetryMax / 64
	for {
		last, maxAge, err := r.lastReport(ctx, req)
		if err == nil {
			return last, maxAge, nil
		}
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		r.opts.Log.Error(err, "read the replay's last report; it does not run until its report can be read",
			"replay", req.Namespace+"/"+req.Name, "retryIn", pause)
		select {
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, r.opts.ReportRetryMax)
	}
}

// lockBinding returns once req holds its binding (replays of one binding
// run one at a time), with the function that frees it; or ctx's error.
// When another replay holds it, queued is called first with why.
func (r *Replayer) lockBinding(ctx context.Context, req busv1.ReplayRequest, queued func(why string)) (func(), error) {
	r.mu.Lock()
	key := bus.ExportStateKey(req.Inventory, req.Sink)
	c, ok := r.bindings[key]
	if !ok {
		c = make(chan struct{}, 1)
		r.bindings[key] = c
	}
	r.mu.Unlock()
	unlock := func() { <-c }
	select {
	case c <- struct{}{}:
		return unlock, nil
	default:
	}
	queued(fmt.Sprintf("queued: another replay of %s to %s runs; replays of one binding run one at a time",
		req.Inventory, req.Sink.BindingName()))
	select {
	case c <- struct{}{}:
		return unlock, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// lastReport returns the replay section of the latest report on req, nil
// when there is none, and how long the status stream keeps a report (zero:
// for ever).
func (r *Replayer) lastReport(ctx context.Context, req busv1.ReplayRequest) (*busv1.ReplayStatus, time.Duration, error) {
	s, err := r.js.Stream(ctx, bus.StreamStatus)
	if err != nil {
		return nil, 0, err
	}
	maxAge := s.CachedInfo().Config.MaxAge
	m, err := s.GetLastMsgForSubject(ctx, bus.StatusSubject(statusAddress(req)))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, maxAge, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var rep busv1.StatusReport
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		return nil, 0, err
	}
	return rep.Replay, maxAge, nil
}

func statusAddress(req busv1.ReplayRequest) bus.StatusAddress {
	return bus.StatusAddress{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: req.Namespace, Name: req.Name}
}

// report publishes st as the replay's status report; it returns whether
// the bus stored it.
func (r *Replayer) report(ctx context.Context, req busv1.ReplayRequest, st busv1.ReplayStatus) bool {
	rep := busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: req.Namespace,
		Name: req.Name, Generation: req.Generation, ObservedAt: time.Now().UTC(), Replay: &st}
	data, err := json.Marshal(rep)
	if err == nil {
		_, err = r.js.Publish(ctx, bus.StatusSubject(statusAddress(req)), data)
	}
	if err != nil && ctx.Err() == nil {
		r.opts.Log.Error(err, "report replay progress", "replay", req.Namespace+"/"+req.Name)
	}
	return err == nil
}

// reportOutcome publishes the final st again (with a growing pause, up to
// ReportRetryMax) until the bus stored it or ctx ends: a finished replay
// whose outcome was lost would look unfinished to the next leader.
func (r *Replayer) reportOutcome(ctx context.Context, req busv1.ReplayRequest, st busv1.ReplayStatus) {
	pause := r.opts.ReportRetryMax / 64
	for !r.report(ctx, req, st) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, r.opts.ReportRetryMax)
	}
}
