package server

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/request"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
)

var (
	historiesResource        = schema.GroupResource{Group: queryv1.Group, Resource: queryv1.ResourceHistories}
	clusterHistoriesResource = schema.GroupResource{Group: queryv1.Group, Resource: queryv1.ResourceClusterHistories}
)

// historiesREST serves inventoryhistories: one summary per inventory with
// a history, named as the inventory, from its index alone; with cluster, clusterinventoryhistories,
// the same for cluster inventories (cluster-scoped).
type historiesREST struct {
	*backend
	cluster bool
}

func (s *historiesREST) New() runtime.Object {
	if s.cluster {
		return &queryv1.ClusterInventoryHistory{}
	}
	return &queryv1.InventoryHistory{}
}

func (s *historiesREST) NewList() runtime.Object {
	if s.cluster {
		return &queryv1.ClusterInventoryHistoryList{}
	}
	return &queryv1.InventoryHistoryList{}
}

func (s *historiesREST) Destroy()              {}
func (s *historiesREST) NamespaceScoped() bool { return !s.cluster }
func (s *historiesREST) Categories() []string  { return []string{"kollect"} }

func (s *historiesREST) GetSingularName() string {
	if s.cluster {
		return "clusterinventoryhistory"
	}
	return "inventoryhistory"
}

func (s *historiesREST) ShortNames() []string {
	if s.cluster {
		return []string{"cinvhist"}
	}
	return []string{"invhist"}
}

func (s *historiesREST) resource() schema.GroupResource {
	if s.cluster {
		return clusterHistoriesResource
	}
	return historiesResource
}

// Get returns the summary of one inventory's history.
func (s *historiesREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	inv := busv1.NamespacedName{Namespace: request.NamespaceValue(ctx), Name: name}
	if err := mayRead(ctx, s.authz, inv); err != nil {
		return nil, err
	}
	revs, err := s.revisions(ctx, inv)
	if err != nil {
		return nil, apiError(err, s.resource(), name)
	}
	out := toHistory(inv, revs)
	if s.cluster {
		return clusterHistory(out), nil
	}
	return &out, nil
}

// List returns the histories of the namespace's inventories (the cluster
// inventories) the caller may get, by name.
func (s *historiesREST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	out, err := s.list(ctx, opts)
	if err != nil || !s.cluster {
		return out, err
	}
	return clusterHistoryList(out), nil
}

func (s *historiesREST) list(ctx context.Context, opts *metainternalversion.ListOptions) (*queryv1.InventoryHistoryList, error) {
	ns := request.NamespaceValue(ctx)
	if ns == "" && !s.cluster {
		return nil, apierrors.NewBadRequest("list inventory histories in one namespace (-n), not across all")
	}
	c, err := decodeCursor(opts.Continue)
	if err != nil {
		return nil, err
	}
	if err := s.owners.ready(); err != nil {
		return nil, err
	}
	names, err := inventoryNames(ctx, s.h, ns, s.resource())
	if err != nil {
		return nil, err
	}
	size := pageSize(opts.Limit, s.limits.Revisions, s.limits.Revisions)
	out := &queryv1.InventoryHistoryList{Items: []queryv1.InventoryHistory{}}
	for _, n := range names {
		if n <= c.Inventory {
			continue
		}
		inv := busv1.NamespacedName{Namespace: ns, Name: n}
		if mayRead(ctx, s.authz, inv) != nil {
			continue
		}
		if len(out.Items) == size {
			out.Continue = cursor{Inventory: out.Items[size-1].Name}.encode()
			return out, nil
		}
		revs, err := s.revisions(ctx, inv)
		if err != nil {
			if apierrors.IsNotFound(apiError(err, s.resource(), n)) {
				continue
			}
			return nil, apiError(err, s.resource(), n)
		}
		out.Items = append(out.Items, toHistory(inv, revs))
	}
	return out, nil
}
