package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/query/internal/answer"
)

// subresource serves one GET subresource of inventoryhistories, or with
// cluster of clusterinventoryhistories (rows, diff, timeline). It is a Connecter so that its handler reads the query
// parameters itself; the caller's right to read the inventory's data
// (mayReadData) is checked before the handler runs, and the handler waits for a slot of the gate.
type subresource struct {
	*backend
	// cluster serves the subresource of clusterinventoryhistories.
	cluster bool
	// serve answers one request; its result is encoded as JSON.
	serve func(ctx context.Context, s *subresource, inv busv1.NamespacedName, q url.Values) (any, error)
}

func (s *subresource) New() runtime.Object {
	if s.cluster {
		return &queryv1.ClusterInventoryHistory{}
	}
	return &queryv1.InventoryHistory{}
}

func (s *subresource) Destroy() {}

// ConnectMethods is GET only: the history is read-only.
func (s *subresource) ConnectMethods() []string { return []string{http.MethodGet} }

// NewConnectOptions is none: the handler reads the query itself.
func (s *subresource) NewConnectOptions() (runtime.Object, bool, string) { return nil, false, "" }

// Connect checks the caller's access to inventory name and returns the
// handler answering the request.
func (s *subresource) Connect(ctx context.Context, name string, _ runtime.Object, r rest.Responder) (http.Handler, error) {
	inv := busv1.NamespacedName{Namespace: request.NamespaceValue(ctx), Name: name}
	if err := mayReadData(ctx, s.authz, inv); err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		out, err := s.answer(req.Context(), inv, req.URL.Query())
		if err != nil {
			resource := historiesResource
			if s.cluster {
				resource = clusterHistoriesResource
			}
			r.Error(apiError(err, resource, name))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(out) // the client went away: nothing to tell it
	}), nil
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{Kind: kind, APIVersion: queryv1.GroupVersion.String()}
}

// answer serves one request within a slot of the gate.
func (s *subresource) answer(ctx context.Context, inv busv1.NamespacedName, q url.Values) (any, error) {
	release, err := s.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return s.serve(ctx, s, inv, q)
}

// serveRows answers rows?revision=N|at=TIME&limit=&continue=: one page of
// the revision's rows, read from the chunks that hold them.
func serveRows(ctx context.Context, s *subresource, inv busv1.NamespacedName, q url.Values) (any, error) {
	sel, err := selector(q, "revision", "at")
	if err != nil {
		return nil, err
	}
	size, err := pageLimit(q, s.limits.DefaultRows, s.limits.Rows, "rows", "--max-rows-per-page")
	if err != nil {
		return nil, err
	}
	c, err := decodeCursor(q.Get("continue"))
	if err != nil {
		return nil, err
	}
	revs, err := s.revisions(ctx, inv)
	if err != nil {
		return nil, err
	}
	var i int
	if c.Seq > 0 {
		i, err = bySeq(revs, c.Seq)
	} else {
		i, err = answer.Select(revs, sel)
	}
	if err != nil {
		return nil, err
	}
	if err := s.h.Count(ctx, inv, revs, i); err != nil {
		return nil, err
	}
	ev, err := s.h.Event(ctx, inv, revs[i].Entry)
	if err != nil {
		return nil, err
	}
	rows, err := s.h.RowsPage(ctx, ev, c.Offset, size)
	if err != nil {
		return nil, err
	}
	out := &queryv1.Rows{TypeMeta: typeMeta("Rows"), Inventory: inv, Revision: toRevision(inv, &revs[i]), Items: rows}
	out.ListMeta = listMeta(c.Offset, len(rows), ev.ItemCount, cursor{Seq: revs[i].Entry.Sequence})
	return out, nil
}

// serveDiff answers diff?from=N|TIME&to=N|TIME (fromAt, toAt too; to
// defaults to the latest, from to the revision before to): one page of the
// changes, refused when the revisions hold more rows to compare than
// Limits.DiffRows.
func serveDiff(ctx context.Context, s *subresource, inv busv1.NamespacedName, q url.Values) (any, error) {
	from, err := selector(q, "from", "fromAt")
	if err != nil {
		return nil, err
	}
	to, err := selector(q, "to", "toAt")
	if err != nil {
		return nil, err
	}
	size, err := pageLimit(q, s.limits.DefaultRows, s.limits.Rows, "row changes", "--max-rows-per-page")
	if err != nil {
		return nil, err
	}
	c, err := decodeCursor(q.Get("continue"))
	if err != nil {
		return nil, err
	}
	revs, err := s.revisions(ctx, inv)
	if err != nil {
		return nil, err
	}
	i, j, err := diffRevisions(revs, from, to, c)
	if err != nil {
		return nil, err
	}
	before, err := s.h.Event(ctx, inv, revs[i].Entry)
	if err != nil {
		return nil, err
	}
	after, err := s.h.Event(ctx, inv, revs[j].Entry)
	if err != nil {
		return nil, err
	}
	n, err := s.h.DiffRows(ctx, before, after)
	if err != nil {
		return nil, err
	}
	if n > s.limits.DiffRows {
		return nil, unprocessable(fmt.Sprintf("diff of revisions %d and %d: it compares %d rows, over the query service's limit "+
			"of %d (--max-diff-rows): compare revisions closer together, or read each revision page by page "+
			"(rows?revision=N, kollect get inventory --revision N -o ndjson) and compare them offline",
			before.Revision, after.Revision, n, s.limits.DiffRows))
	}
	for _, k := range []int{i, j} {
		if err := s.h.Count(ctx, inv, revs, k); err != nil {
			return nil, err
		}
	}
	items, total, err := s.h.Diff(ctx, before, after, c.Offset, size)
	if err != nil {
		return nil, err
	}
	out := &queryv1.Diff{TypeMeta: typeMeta("Diff"), Inventory: inv, From: toRevision(inv, &revs[i]), To: toRevision(inv, &revs[j]), Items: items}
	out.ListMeta = listMeta(c.Offset, len(items), total, cursor{Seq: revs[i].Entry.Sequence, ToSeq: revs[j].Entry.Sequence})
	return out, nil
}

// diffRevisions returns the indexes in revs of the revisions a diff
// compares: those a continue token read, or those from and to pick.
func diffRevisions(revs []answer.Revision, from, to answer.Selector, c cursor) (int, int, error) {
	if c.Seq > 0 {
		i, err := bySeq(revs, c.Seq)
		if err != nil {
			return 0, 0, err
		}
		j, err := bySeq(revs, c.ToSeq)
		return i, j, err
	}
	j, err := answer.Select(revs, to)
	if err != nil {
		return 0, 0, err
	}
	if from == (answer.Selector{}) {
		return max(j-1, 0), j, nil
	}
	i, err := answer.Select(revs, from)
	return i, j, err
}

// serveTimeline answers timeline?uid=U or ?kind=K&name=N[&namespace=NS][&group=G],
// with since and until (RFC 3339): the revisions published in that window,
// at most Limits.TimelineSpan long; until defaults to the latest revision,
// since to until minus the span.
func serveTimeline(ctx context.Context, s *subresource, inv busv1.NamespacedName, q url.Values) (any, error) {
	o := answer.Object{UID: q.Get("uid"), Group: q.Get("group"), Kind: q.Get("kind"), Namespace: q.Get("namespace"), Name: q.Get("name")}
	if o.UID == "" && (o.Kind == "" || o.Name == "") {
		return nil, apierrors.NewBadRequest("timeline: name the object with uid, or with kind and name (and namespace, group)")
	}
	size, err := pageLimit(q, s.limits.Revisions, s.limits.Revisions, "timeline entries", "--max-revisions-per-page")
	if err != nil {
		return nil, err
	}
	c, err := decodeCursor(q.Get("continue"))
	if err != nil {
		return nil, err
	}
	revs, err := s.revisions(ctx, inv)
	if err != nil {
		return nil, err
	}
	from, to, err := timelineWindow(revs, q, c, s.limits.TimelineSpan)
	if err != nil {
		return nil, err
	}
	entries, next, err := s.h.Timeline(ctx, inv, revs, from, to, o, size)
	if err != nil {
		return nil, err
	}
	out := &queryv1.Timeline{TypeMeta: typeMeta("Timeline"), Inventory: inv, Items: entries}
	if out.Items == nil {
		out.Items = []queryv1.TimelineEntry{}
	}
	if next < to {
		out.Continue = cursor{Seq: revs[next-1].Entry.Sequence, ToSeq: revs[to-1].Entry.Sequence}.encode()
	}
	return out, nil
}

// timelineWindow returns revs[from:to], the revisions a timeline request
// reads: after the last one a continue token read up to the end of its
// window, or those published from since to until.
func timelineWindow(revs []answer.Revision, q url.Values, c cursor, span time.Duration) (int, int, error) {
	if c.Seq > 0 {
		last, err := bySeq(revs, c.Seq)
		if err != nil {
			return 0, 0, err
		}
		end, err := bySeq(revs, c.ToSeq)
		return last + 1, end + 1, err
	}
	since, until, err := window(q, revs[len(revs)-1].Entry.Time, span)
	if err != nil {
		return 0, 0, err
	}
	from := sort.Search(len(revs), func(i int) bool { return !revs[i].Entry.Time.Before(since) })
	to := sort.Search(len(revs), func(i int) bool { return revs[i].Entry.Time.After(until) })
	return from, max(from, to), nil
}

// window parses since and until. Without either the window is the span
// up to latest; with one of them it is the span from since or up to until.
// A window longer than span is refused.
func window(q url.Values, latest time.Time, span time.Duration) (since, until time.Time, err error) {
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"since", &since}, {"until", &until}} {
		if v := q.Get(p.name); v != "" {
			if *p.t, err = time.Parse(time.RFC3339Nano, v); err != nil {
				return since, until, apierrors.NewBadRequest(fmt.Sprintf("%s: %q is not an RFC 3339 time", p.name, v))
			}
		}
	}
	switch {
	case since.IsZero() && until.IsZero():
		until = latest
		since = until.Add(-span)
	case until.IsZero():
		until = since.Add(span)
	case since.IsZero():
		since = until.Add(-span)
	}
	switch d := until.Sub(since); {
	case d < 0:
		return since, until, apierrors.NewBadRequest("since and until: since is after until")
	case d > span:
		return since, until, apierrors.NewBadRequest(fmt.Sprintf("since and until: the window is %s long, over the longest a "+
			"timeline request reads (%s, the query service's --max-timeline-span): ask for a shorter one", d, span))
	}
	return since, until, nil
}

// unprocessable is a 422 error: the request is well formed, but answering
// it would read more than the query service's limits allow.
func unprocessable(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity,
		Reason: metav1.StatusReasonInvalid, Message: msg}}
}
