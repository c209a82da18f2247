package server

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/query/internal/history"
)

var revisionsResource = schema.GroupResource{Group: queryv1.Group, Resource: queryv1.ResourceRevisions}

// revisionsREST serves inventoryrevisions: list (one inventory with the
// label selector kollect.dev/inventory=NAME, or every inventory of the
// namespace the caller may get) and get "<inventory>.<revision>".
type revisionsREST struct {
	h      *history.Reader
	authz  authorizer.Authorizer
	limits Limits
}

func (s *revisionsREST) New() runtime.Object     { return &queryv1.InventoryRevision{} }
func (s *revisionsREST) NewList() runtime.Object { return &queryv1.InventoryRevisionList{} }
func (s *revisionsREST) Destroy()                {}
func (s *revisionsREST) NamespaceScoped() bool   { return true }
func (s *revisionsREST) GetSingularName() string { return "inventoryrevision" }
func (s *revisionsREST) ShortNames() []string    { return []string{"invrev"} }
func (s *revisionsREST) Categories() []string    { return []string{"kollect"} }

// Get returns one revision.
func (s *revisionsREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	invName, rev, err := parseRevisionName(name)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	inv := busv1.NamespacedName{Namespace: request.NamespaceValue(ctx), Name: invName}
	if err := mayRead(ctx, s.authz, inv); err != nil {
		return nil, err
	}
	revs, err := s.h.Revisions(ctx, inv)
	if err != nil {
		return nil, apiError(err, revisionsResource, name)
	}
	i, err := history.Select(revs, history.Selector{Revision: rev})
	if err != nil {
		return nil, apiError(err, revisionsResource, name)
	}
	if err := s.h.Count(ctx, revs, i); err != nil {
		return nil, apiError(err, revisionsResource, name)
	}
	out := toRevision(inv, &revs[i])
	return &out, nil
}

// List returns a page of revisions, by inventory name then revision.
func (s *revisionsREST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	ns := request.NamespaceValue(ctx)
	if ns == "" {
		return nil, apierrors.NewBadRequest("list inventory revisions in one namespace (-n), not across all")
	}
	c, err := decodeCursor(opts.Continue)
	if err != nil {
		return nil, err
	}
	var names []string
	if opts.LabelSelector != nil {
		if n, ok := opts.LabelSelector.RequiresExactMatch(queryv1.LabelInventory); ok {
			names = []string{n}
		}
	}
	explicit := names != nil
	if !explicit {
		if names, err = inventoryNames(ctx, s.h, ns); err != nil {
			return nil, err
		}
	}
	size := pageSize(opts.Limit, s.limits.Revisions, s.limits.Revisions)
	out := &queryv1.InventoryRevisionList{Items: []queryv1.InventoryRevision{}}
	for _, n := range names {
		if n < c.Inventory {
			continue
		}
		inv := busv1.NamespacedName{Namespace: ns, Name: n}
		if err := mayRead(ctx, s.authz, inv); err != nil {
			if explicit {
				return nil, err
			}
			continue // not the caller's to see: not listed
		}
		revs, err := s.h.Revisions(ctx, inv)
		if apierrors.IsNotFound(apiError(err, revisionsResource, n)) && !explicit {
			continue // its history expired meanwhile
		}
		if err != nil {
			return nil, apiError(err, revisionsResource, n)
		}
		for i := range revs {
			if n == c.Inventory && revs[i].Event.Revision <= c.From {
				continue
			}
			if len(out.Items) == size {
				last := out.Items[len(out.Items)-1]
				out.Continue = cursor{Inventory: last.Inventory, From: last.Revision}.encode()
				return out, nil
			}
			if err := s.h.Count(ctx, revs, i); err != nil {
				return nil, apiError(err, revisionsResource, n)
			}
			r := toRevision(inv, &revs[i])
			if opts.LabelSelector != nil && !opts.LabelSelector.Matches(labels.Set(r.Labels)) {
				continue // a selector other than kollect.dev/inventory=NAME: filtered here
			}
			out.Items = append(out.Items, r)
		}
	}
	return out, nil
}

// inventoryNames returns the names of the inventories of ns with a
// history, sorted.
func inventoryNames(ctx context.Context, h *history.Reader, ns string) ([]string, error) {
	invs, err := h.Inventories(ctx, ns)
	if err != nil {
		return nil, apiError(err, revisionsResource, ns)
	}
	names := make([]string, len(invs))
	for i, inv := range invs {
		names[i] = inv.Name
	}
	slices.Sort(names)
	return names, nil
}
