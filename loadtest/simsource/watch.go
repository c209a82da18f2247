package simsource

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// errExpired is a watch from a resourceVersion older than the event log.
var errExpired = errors.New("too old resource version")

// watcher receives every event after it registered; the watch filters.
type watcher struct {
	events chan event
	lagged chan struct{} // closed when it fell WatchBuffer events behind
}

// register starts a watch. With initial, it begins at the latest
// resourceVersion (the caller sends the current objects first); else it
// resumes after from with the logged events since.
func (s *Source) register(from uint64, initial bool) (w *watcher, start uint64, replay []event, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if initial {
		start = s.rv
	} else {
		if from < s.compacted {
			return nil, 0, nil, errExpired
		}
		start = from
		for _, ev := range s.log {
			if ev.st.rv > from {
				replay = append(replay, ev)
			}
		}
	}
	w = &watcher{events: make(chan event, s.opts.WatchBuffer), lagged: make(chan struct{})}
	s.watchers[w] = struct{}{}
	return w, start, replay, nil
}

// unregister ends w.
func (s *Source) unregister(w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.watchers, w)
}

// Watches is the number of open watches.
func (s *Source) Watches() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.watchers)
}

// serveWatch streams the events of res matching f: the current objects
// first when the client asks for them (sendInitialEvents, or no
// resourceVersion), then every change, with bookmarks when allowed.
func (s *Source) serveWatch(w http.ResponseWriter, r *http.Request, enc encoding, res served, f filter) {
	q := r.URL.Query()
	rvParam := q.Get("resourceVersion")
	sendInitial := q.Get("sendInitialEvents") == "true"
	initial := sendInitial || rvParam == "" || rvParam == "0"
	from, err := strconv.ParseUint(rvParam, 10, 64)
	if !initial && err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "invalid resourceVersion "+strconv.Quote(rvParam))
		return
	}
	wt, progress, replay, err := s.register(from, initial)
	if err != nil {
		writeStatus(w, http.StatusGone, metav1.StatusReasonExpired, "too old resource version: "+rvParam)
		return
	}
	defer s.unregister(wt)
	ctx := r.Context()
	if t, err := strconv.Atoi(q.Get("timeoutSeconds")); err == nil && t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(t)*time.Second)
		defer cancel()
	}
	ew := newEventWriter(w, enc)
	if initial {
		if err := s.sendInitial(ctx, ew, res, f); err != nil {
			return
		}
		if sendInitial {
			b := emptyObject(res.Kind, progress)
			if m, err := accessor(b); err == nil {
				m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
			}
			if ew.write(watch.Bookmark, b) != nil {
				return
			}
		}
		ew.flush()
	}
	send := func(ev event) error {
		if ev.st.rv <= progress {
			return nil
		}
		progress = ev.st.rv
		if res.kind < 0 || !f.matches(s, ev.i) {
			return nil
		}
		return ew.write(ev.typ, s.object(ev.i, ev.st))
	}
	for _, ev := range replay {
		if send(ev) != nil {
			return
		}
	}
	ew.flush()
	bookmarks := time.NewTicker(s.opts.BookmarkInterval)
	defer bookmarks.Stop()
	allowBookmarks := q.Get("allowWatchBookmarks") == "true"
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-wt.lagged:
			return
		case ev := <-wt.events:
			err = send(ev)
			// Take what else is queued before flushing.
			for more := true; more && err == nil; {
				select {
				case ev := <-wt.events:
					err = send(ev)
				default:
					more = false
				}
			}
		case <-bookmarks.C:
			if allowBookmarks {
				err = ew.write(watch.Bookmark, emptyObject(res.Kind, progress))
			}
		}
		if err != nil {
			return
		}
		ew.flush()
	}
}

// sendInitial writes an ADDED event for every object of res matching f.
func (s *Source) sendInitial(ctx context.Context, ew *eventWriter, res served, f filter) error {
	if res.kind < 0 {
		for _, o := range s.fixed(res) {
			if err := ew.write(watch.Added, o); err != nil {
				return err
			}
		}
		return nil
	}
	for j, done := 0, false; !done; {
		var items []runtime.Object
		items, j, done = s.page(f, j, 500)
		for _, o := range items {
			if err := ew.write(watch.Added, o); err != nil {
				return err
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}
