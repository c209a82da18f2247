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
	"k8s.io/apiserver/pkg/endpoints/request"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/query/internal/answer"
)

var (
	revisionsResource        = schema.GroupResource{Group: queryv1.Group, Resource: queryv1.ResourceRevisions}
	clusterRevisionsResource = schema.GroupResource{Group: queryv1.Group, Resource: queryv1.ResourceClusterRevisions}
)

// revisionsREST serves inventoryrevisions: list (one inventory with the
// label selector kollect.dev/inventory=NAME, or every inventory of the
// namespace the caller may get) and get "<inventory>.<revision>"; with
// cluster, clusterinventoryrevisions, the same for cluster inventories
// (cluster-scoped).
type revisionsREST struct {
	*backend
	cluster bool
}

func (s *revisionsREST) New() runtime.Object {
	if s.cluster {
		return &queryv1.ClusterInventoryRevision{}
	}
	return &queryv1.InventoryRevision{}
}

func (s *revisionsREST) NewList() runtime.Object {
	if s.cluster {
		return &queryv1.ClusterInventoryRevisionList{}
	}
	return &queryv1.InventoryRevisionList{}
}

func (s *revisionsREST) Destroy()              {}
func (s *revisionsREST) NamespaceScoped() bool { return !s.cluster }
func (s *revisionsREST) Categories() []string  { return []string{"kollect"} }

func (s *revisionsREST) GetSingularName() string {
	if s.cluster {
		return "clusterinventoryrevision"
	}
	return "inventoryrevision"
}

func (s *revisionsREST) ShortNames() []string {
	if s.cluster {
		return []string{"cinvrev"}
	}
	return []string{"invrev"}
}

func (s *revisionsREST) resource() schema.GroupResource {
	if s.cluster {
		return clusterRevisionsResource
	}
	return revisionsResource
}

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
	release, err := s.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	revs, err := s.revisions(ctx, inv)
	if err != nil {
		return nil, apiError(err, s.resource(), name)
	}
	i, err := answer.Select(revs, answer.Selector{Revision: rev})
	if err != nil {
		return nil, apiError(err, s.resource(), name)
	}
	if err := s.h.Count(ctx, inv, revs, i); err != nil {
		return nil, apiError(err, s.resource(), name)
	}
	out := toRevision(inv, &revs[i])
	if s.cluster {
		return clusterRevision(out), nil
	}
	return &out, nil
}

// List returns a page of revisions, by inventory name then revision.
func (s *revisionsREST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	out, err := s.list(ctx, opts)
	if err != nil || !s.cluster {
		return out, err
	}
	return clusterRevisionList(out), nil
}

func (s *revisionsREST) list(ctx context.Context, opts *metainternalversion.ListOptions) (*queryv1.InventoryRevisionList, error) {
	ns := request.NamespaceValue(ctx)
	if ns == "" && !s.cluster {
		return nil, apierrors.NewBadRequest("list inventory revisions in one namespace (-n), not across all")
	}
	c, err := decodeCursor(opts.Continue)
	if err != nil {
		return nil, err
	}
	if err := s.owners.ready(); err != nil {
		return nil, err
	}
	release, err := s.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	var names []string
	if opts.LabelSelector != nil {
		if n, ok := opts.LabelSelector.RequiresExactMatch(queryv1.LabelInventory); ok {
			names = []string{n}
		}
	}
	explicit := names != nil
	if !explicit {
		if names, err = inventoryNames(ctx, s.h, ns, s.resource()); err != nil {
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
		revs, err := s.revisions(ctx, inv)
		if apierrors.IsNotFound(apiError(err, s.resource(), n)) && !explicit {
			continue // its history expired meanwhile
		}
		if err != nil {
			return nil, apiError(err, s.resource(), n)
		}
		for i := range revs {
			if n == c.Inventory && revs[i].Entry.Revision <= c.From {
				continue
			}
			if len(out.Items) == size {
				last := out.Items[len(out.Items)-1]
				out.Continue = cursor{Inventory: last.Inventory, From: last.Revision}.encode()
				return out, nil
			}
			if err := s.h.Count(ctx, inv, revs, i); err != nil {
				return nil, apiError(err, s.resource(), n)
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

// inventoryNames returns the names of the inventories of ns (the cluster
// inventories when empty) with a history, sorted.
func inventoryNames(ctx context.Context, h *answer.Reader, ns string, resource schema.GroupResource) ([]string, error) {
	invs, err := h.Inventories(ctx, ns)
	if err != nil {
		return nil, apiError(err, resource, ns)
	}
	names := make([]string, len(invs))
	for i, inv := range invs {
		names[i] = inv.Name
	}
	slices.Sort(names)
	return names, nil
}
