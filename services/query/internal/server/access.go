package server

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/query/internal/answer"
)

// inventoryResource and clusterInventoryResource are what a caller must be
// allowed to `get` to read an inventory's, or a cluster inventory's,
// history.
var (
	inventoryResource        = schema.GroupResource{Group: v1alpha1.Group, Resource: "kollectinventories"}
	clusterInventoryResource = schema.GroupResource{Group: v1alpha1.Group, Resource: "kollectclusterinventories"}
)

// mayRead returns nil when the caller of ctx may get the KollectInventory
// inv (the KollectClusterInventory inv.Name when inv has no namespace, as
// on the bus), and a Forbidden error otherwise: the delegated authorizer
// asks the Kubernetes API server (a SubjectAccessReview, cached briefly).
// It is enough to list and get revisions, which show no rows.
func mayRead(ctx context.Context, authz authorizer.Authorizer, inv busv1.NamespacedName) error {
	return authorize(ctx, authz, inv, "", "reading an inventory's history needs get on the ")
}

// mayReadData returns nil when the caller of ctx may also read inv's rows:
// get on the inventory and get on its data subresource
// (queryv1.InventoryDataSubresource), which the aggregated view role does
// not hold. Rows, diffs and timelines show exported values (attributes of
// Secrets where a Profile opts in, rows of other namespaces granted to
// the inventory's), which seeing the object does not.
func mayReadData(ctx context.Context, authz authorizer.Authorizer, inv busv1.NamespacedName) error {
	if err := mayRead(ctx, authz, inv); err != nil {
		return err
	}
	return authorize(ctx, authz, inv, queryv1.InventoryDataSubresource, "reading an inventory's rows needs get on the data subresource of the ")
}

// authorize asks authz whether the caller of ctx may get inv's
// subresource (the inventory itself when empty); a refusal is a Forbidden
// error whose message starts with refusal and ends with the kind.
func authorize(ctx context.Context, authz authorizer.Authorizer, inv busv1.NamespacedName, subresource, refusal string) error {
	user, ok := request.UserFrom(ctx)
	if !ok {
		return apierrors.NewUnauthorized("no user in the request")
	}
	resource, kind := inventoryResource, "KollectInventory"
	if inv.Namespace == "" {
		resource, kind = clusterInventoryResource, "KollectClusterInventory"
	}
	attrs := authorizer.AttributesRecord{
		User: user, Verb: "get", Namespace: inv.Namespace, Name: inv.Name,
		APIGroup: v1alpha1.Group, APIVersion: v1alpha1.GroupVersion.Version, Resource: resource.Resource,
		Subresource: subresource, ResourceRequest: true,
	}
	decision, reason, err := authz.Authorize(ctx, attrs)
	if decision == authorizer.DecisionAllow {
		return nil
	}
	msg := refusal + kind
	if subresource != "" {
		msg += " (" + resource.Resource + "/" + subresource + ")"
	}
	if reason != "" {
		msg += ": " + reason
	}
	if err != nil {
		msg += ": " + err.Error()
	}
	return apierrors.NewForbidden(resource, inv.Name, errors.New(msg))
}

// apiError maps history errors to API errors: not found is 404, anything
// else an internal error (the bus failed).
func apiError(err error, resource schema.GroupResource, name string) error {
	if errors.Is(err, answer.ErrNotFound) {
		nf := apierrors.NewNotFound(resource, name)
		nf.ErrStatus.Message = err.Error()
		return nf
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err
	}
	return apierrors.NewInternalError(fmt.Errorf("read history: %w", err))
}
