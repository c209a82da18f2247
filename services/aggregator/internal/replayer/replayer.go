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
	// Log receives one line per replay finished or failed.
	Log logr.Logger
}

// Replayer runs the replay requests of the config bucket.
type Replayer struct {
	js   jetstream.JetStream
	opts Options
	// bindings serialises replays to the same binding.
	mu       sync.Mutex
	bindings map[string]*sync.Mutex
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
	return &Replayer{js: js, opts: opts, bindings: map[string]*sync.Mutex{}}
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
		put := ent.Operation() == jetstream.KeyValuePut && json.Unmarshal(ent.Value(), &req) == nil
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
// instead of running again.
func (r *Replayer) serve(ctx context.Context, req busv1.ReplayRequest, written time.Time) {
	last, maxAge, err := r.lastReportWaiting(ctx, req)
	if err != nil {
		return // ctx ended
	}
	if last != nil && last.UID == req.UID && (last.Phase == busv1.ReplaySucceeded || last.Phase == busv1.ReplayFailed) {
		return
	}
	if (last == nil || last.UID != req.UID) && maxAge > 0 && time.Since(written) > maxAge {
		now := time.Now().UTC()
		r.reportOutcome(ctx, req, busv1.ReplayStatus{UID: req.UID, Phase: busv1.ReplayFailed, StartedAt: now, FinishedAt: now,
			Outcome: busv1.Outcome{Reason: v1alpha1.ReasonReplayFailed, Message: fmt.Sprintf(
				"the outcome of this replay is unknown: its request was written %s ago, its report is kept %s and is gone; "+
					"it is not run again, create a new KollectReplay", now.Sub(written).Round(time.Second), maxAge)}})
		r.opts.Log.Info("replay of unknown outcome failed, not run again", "replay", req.Namespace+"/"+req.Name)
		return
	}
	lock := r.lockFor(bus.ExportStateKey(req.Inventory, req.Sink))
	lock.Lock()
	defer lock.Unlock()
	// Running before any history is read: a replay that crashes its
	// aggregator shows as Running, not Pending (F2 of SECURITY-3).
	st := busv1.ReplayStatus{UID: req.UID, Phase: busv1.ReplayRunning, StartedAt: time.Now().UTC()}
	r.report(ctx, req, st)
	st = r.run(ctx, req, st)
	if ctx.Err() != nil {
		return // stopped: the object is gone or the leader stepped down
	}
	r.reportOutcome(ctx, req, st)
	r.opts.Log.Info("replay finished", "replay", req.Namespace+"/"+req.Name, app.KeyInventory, req.Inventory.String(),
		app.KeySink, req.Sink.BindingName(), "phase", st.Phase, "revisions", st.RevisionsDone, app.KeyReason, st.Reason, "message", st.Message)
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

func (r *Replayer) lockFor(key string) *sync.Mutex {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.bindings[key]
	if !ok {
		m = &sync.Mutex{}
		r.bindings[key] = m
	}
	return m
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
