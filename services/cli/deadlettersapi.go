package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
)

// deadLetterAPI reads dead letters through the Kubernetes API server
// (query.kollect.dev's deadletters and clusterdeadletters, served by the
// query service) with the kubeconfig's credentials, or from the history
// API `kollect dev` serves on this machine (historyAPI.devQuery).
type deadLetterAPI struct {
	h *historyAPI
}

func newDeadLetterAPI(kube *kubeFlags) (*deadLetterAPI, error) {
	h, err := newHistoryAPI(kube, busv1.NamespacedName{})
	if err != nil {
		return nil, err
	}
	return &deadLetterAPI{h: h}, nil
}

// deadLetterScope is what a list reads: one namespace's dead letters
// (every namespace's when all), or the cluster inventories' (cluster),
// narrowed to one inventory and one family when set.
type deadLetterScope struct {
	namespace         string
	all, cluster      bool
	inventory, family string
}

// deadLetterPath is the API path of the namespaced (cluster false) or
// cluster resource, in ns when set (every namespace's when empty), and of
// the dead letter name when set.
func deadLetterPath(cluster bool, ns, name string) string {
	p := "/apis/" + queryv1.GroupVersion.String() + "/"
	switch {
	case cluster:
		p += queryv1.ResourceClusterDeadLetters
	case ns != "":
		p += "namespaces/" + ns + "/" + queryv1.ResourceDeadLetters
	default:
		p += queryv1.ResourceDeadLetters
	}
	if name != "" {
		p += "/" + name
	}
	return p
}

// get decodes the answer of path into v; the first answer that the API
// server serves no query.kollect.dev switches to kollect dev's.
func (a *deadLetterAPI) get(ctx context.Context, path string, q url.Values, v any) error {
	req := a.h.rc.Get().AbsPath(path)
	for k, vs := range q {
		for _, s := range vs {
			req = req.Param(k, s)
		}
	}
	res := req.Do(ctx)
	b, err := res.Raw()
	if err != nil && noQueryAPI(res.Error()) {
		if ok, derr := a.h.devQuery(); derr != nil {
			return fmt.Errorf("dead letters: %w", derr)
		} else if ok {
			return a.get(ctx, path, q, v)
		}
	}
	if err != nil {
		return explainDeadLetters(res.Error())
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode the answer of %s: %w", path, err)
	}
	return nil
}

// explainDeadLetters turns the API server's answers into what the user
// can act on.
func explainDeadLetters(err error) error {
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("dead letters: %w (reading them needs get and list on query.kollect.dev's deadletters "+
			"and get on the inventory, KollectInventory or KollectClusterInventory)", err)
	case noQueryAPI(err):
		return fmt.Errorf("dead letters: the cluster serves no query.kollect.dev API: install the chart with query.enabled=true, "+
			"or run kollect dev, which serves it on this machine: %w", err)
	}
	return fmt.Errorf("dead letters: %w", err)
}

// list reads every dead letter of sc, page by page, oldest first; with
// all, the cluster inventories' too, unless the caller may not list them.
func (a *deadLetterAPI) list(ctx context.Context, sc deadLetterScope) ([]queryv1.DeadLetter, error) {
	q := url.Values{}
	sel := ""
	if sc.inventory != "" {
		sel = queryv1.LabelInventory + "=" + sc.inventory
	}
	if sc.family != "" {
		if sel != "" {
			sel += ","
		}
		sel += queryv1.LabelFamily + "=" + sc.family
	}
	if sel != "" {
		q.Set("labelSelector", sel)
	}
	ns := sc.namespace
	if sc.all {
		ns = ""
	}
	out, err := a.pages(ctx, deadLetterPath(sc.cluster, ns, ""), q)
	if err != nil || !sc.all {
		return out, err
	}
	cluster, err := a.pages(ctx, deadLetterPath(true, "", ""), q)
	if apierrors.IsForbidden(err) {
		return out, nil // the cluster inventories' are not the caller's to list
	} else if err != nil {
		return nil, err
	}
	out = append(out, cluster...)
	slices.SortFunc(out, func(x, y queryv1.DeadLetter) int { return compareUint(x.Sequence, y.Sequence) })
	return out, nil
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// pages reads every page of path.
func (a *deadLetterAPI) pages(ctx context.Context, path string, q url.Values) ([]queryv1.DeadLetter, error) {
	out := []queryv1.DeadLetter{}
	for {
		var l queryv1.DeadLetterList // a ClusterDeadLetterList decodes the same
		if err := a.get(ctx, path, q, &l); err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
		if l.Continue == "" {
			return out, nil
		}
		q = cloneValues(q)
		q.Set("continue", l.Continue)
	}
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

// one returns the dead letter seq of namespace ns; when ns has none, the
// cluster inventories' of that sequence, if the caller may read it.
func (a *deadLetterAPI) one(ctx context.Context, ns string, seq uint64) (*queryv1.DeadLetter, error) {
	name := strconv.FormatUint(seq, 10)
	var d queryv1.DeadLetter
	err := a.get(ctx, deadLetterPath(false, ns, name), nil, &d)
	if err == nil {
		return &d, nil
	}
	if !apierrors.IsNotFound(err) || noQueryAPI(err) {
		return nil, err
	}
	if cerr := a.get(ctx, deadLetterPath(true, "", name), nil, &d); cerr == nil {
		return &d, nil
	}
	return nil, fmt.Errorf("dead letter %d not found in namespace %s, nor among the cluster inventories' "+
		"(evicted, or of another namespace: kollect deadletters list -A prints each one's inventory; "+
		"show NAMESPACE/SEQ): %w", seq, ns, errors.Unwrap(err))
}
