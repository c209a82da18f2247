package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/query/internal/answer"
)

// subresource serves one GET subresource of inventoryhistories, or with
// cluster of clusterinventoryhistories (rows, diff, timeline). It is a Connecter so that its handler reads the query
// parameters itself; the caller's right to get the inventory is checked
// before the handler runs.
type subresource struct {
	h      *answer.Reader
	authz  authorizer.Authorizer
	limits Limits
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
	if err := mayRead(ctx, s.authz, inv); err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		out, err := s.serve(req.Context(), s, inv, req.URL.Query())
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

// serveRows answers rows?revision=N|at=TIME&limit=&continue=.
func serveRows(ctx context.Context, s *subresource, inv busv1.NamespacedName, q url.Values) (any, error) {
	sel, err := selector(q, "revision", "at")
	if err != nil {
		return nil, err
	}
	limit, err := limitParam(q)
	if err != nil {
		return nil, err
	}
	c, err := decodeCursor(q.Get("continue"))
	if err != nil {
		return nil, err
	}
	if c.From > 0 {
		sel = answer.Selector{Revision: c.From}
	}
	revs, err := s.h.Revisions(ctx, inv)
	if err != nil {
		return nil, err
	}
	i, err := answer.Select(revs, sel)
	if err != nil {
		return nil, err
	}
	if err := s.h.Count(ctx, revs, i); err != nil {
		return nil, err
	}
	rows, err := s.h.Rows(ctx, revs[i].Event)
	if err != nil {
		return nil, err
	}
	out := &queryv1.Rows{TypeMeta: typeMeta("Rows"), Inventory: inv, Revision: toRevision(inv, &revs[i])}
	out.Items, out.ListMeta = page(rows, c.Offset, pageSize(limit, s.limits.DefaultRows, s.limits.Rows),
		cursor{From: revs[i].Event.Revision})
	return out, nil
}

// serveDiff answers diff?from=N|TIME&to=N|TIME (fromAt, toAt too; to
// defaults to the latest, from to the revision before to).
func serveDiff(ctx context.Context, s *subresource, inv busv1.NamespacedName, q url.Values) (any, error) {
	from, err := selector(q, "from", "fromAt")
	if err != nil {
		return nil, err
	}
	to, err := selector(q, "to", "toAt")
	if err != nil {
		return nil, err
	}
	limit, err := limitParam(q)
	if err != nil {
		return nil, err
	}
	c, err := decodeCursor(q.Get("continue"))
	if err != nil {
		return nil, err
	}
	if c.From > 0 {
		from, to = answer.Selector{Revision: c.From}, answer.Selector{Revision: c.To}
	}
	revs, err := s.h.Revisions(ctx, inv)
	if err != nil {
		return nil, err
	}
	j, err := answer.Select(revs, to)
	if err != nil {
		return nil, err
	}
	i := max(j-1, 0)
	if from != (answer.Selector{}) {
		if i, err = answer.Select(revs, from); err != nil {
			return nil, err
		}
	}
	before, err := s.h.Rows(ctx, revs[i].Event)
	if err != nil {
		return nil, err
	}
	after, err := s.h.Rows(ctx, revs[j].Event)
	if err != nil {
		return nil, err
	}
	for _, k := range []int{i, j} {
		if err := s.h.Count(ctx, revs, k); err != nil {
			return nil, err
		}
	}
	out := &queryv1.Diff{TypeMeta: typeMeta("Diff"), Inventory: inv, From: toRevision(inv, &revs[i]), To: toRevision(inv, &revs[j])}
	out.Items, out.ListMeta = page(answer.Compare(before, after), c.Offset, pageSize(limit, s.limits.DefaultRows, s.limits.Rows),
		cursor{From: revs[i].Event.Revision, To: revs[j].Event.Revision})
	if out.Items == nil {
		out.Items = []queryv1.RowChange{}
	}
	return out, nil
}

// serveTimeline answers timeline?uid=U or ?kind=K&name=N[&namespace=NS][&group=G].
func serveTimeline(ctx context.Context, s *subresource, inv busv1.NamespacedName, q url.Values) (any, error) {
	o := answer.Object{UID: q.Get("uid"), Group: q.Get("group"), Kind: q.Get("kind"), Namespace: q.Get("namespace"), Name: q.Get("name")}
	if o.UID == "" && (o.Kind == "" || o.Name == "") {
		return nil, apierrors.NewBadRequest("timeline: name the object with uid, or with kind and name (and namespace, group)")
	}
	limit, err := limitParam(q)
	if err != nil {
		return nil, err
	}
	c, err := decodeCursor(q.Get("continue"))
	if err != nil {
		return nil, err
	}
	revs, err := s.h.Revisions(ctx, inv)
	if err != nil {
		return nil, err
	}
	from := 0
	if c.From > 0 { // the revision after the last page's last one still kept
		for from < len(revs) && revs[from].Event.Revision <= c.From {
			from++
		}
	}
	entries, next, err := s.h.Timeline(ctx, revs, from, o, pageSize(limit, s.limits.Revisions, s.limits.Revisions))
	if err != nil {
		return nil, err
	}
	out := &queryv1.Timeline{TypeMeta: typeMeta("Timeline"), Inventory: inv, Items: entries}
	if out.Items == nil {
		out.Items = []queryv1.TimelineEntry{}
	}
	if next < len(revs) {
		out.Continue = cursor{From: revs[next-1].Event.Revision}.encode()
	}
	return out, nil
}

// page returns items[offset:offset+size] and the list metadata, with a
// continue token (c at the next offset) when more remain.
func page[T any](items []T, offset, size int, c cursor) ([]T, metav1.ListMeta) {
	if offset > len(items) {
		offset = len(items)
	}
	end := min(offset+size, len(items))
	var lm metav1.ListMeta
	if end < len(items) {
		c.Offset = end
		lm.Continue = c.encode()
		rest := int64(len(items) - end)
		lm.RemainingItemCount = &rest
	}
	out := items[offset:end]
	if out == nil {
		out = []T{}
	}
	return out, lm
}
