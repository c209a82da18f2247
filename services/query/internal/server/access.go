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
func mayRead(ctx context.Context, authz authorizer.Authorizer, inv busv1.NamespacedName) error {
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
		ResourceRequest: true,
	}
	decision, reason, err := authz.Authorize(ctx, attrs)
	if decision == authorizer.DecisionAllow {
		return nil
	}
	msg := "reading an inventory's history needs get on the " + kind
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
