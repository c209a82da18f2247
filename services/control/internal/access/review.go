package access

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

// Identity is who an access review asks about.
type Identity struct {
	// User is the user name, e.g. system:serviceaccount:team-a:kollect.
	User string
	// Groups are the user's groups.
	Groups []string
	// UID is the user's UID, when known.
	UID string
	// Extra is the authenticator's extra information, when known.
	Extra map[string]authorizationv1.ExtraValue
}

// ServiceAccount is the identity of ServiceAccount name in namespace ns,
// with the groups the API server gives every ServiceAccount token, so a
// binding to system:serviceaccounts:<ns> counts as it would for a pod.
func ServiceAccount(ns, name string) Identity {
	return Identity{
		User:   serviceAccountPrefix + ns + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}
}

// Reviewer creates SubjectAccessReviews.
type Reviewer struct {
	// Kube creates the reviews.
	Kube kubernetes.Interface
	// Mapper maps a kind to its resource and scope.
	Mapper meta.RESTMapper
	// Cache, when set, remembers answers; the webhook's reviewers leave
	// it nil so that admission always asks the API server.
	Cache *Cache
	// RBAC, when set, answers every question about a ServiceAccount from
	// informer caches instead of a review (see RBAC); questions about
	// users (requesters) always go to the API server.
	RBAC *RBAC
}

// IsServiceAccount reports whether id is a ServiceAccount's.
func IsServiceAccount(id Identity) bool { return strings.HasPrefix(id.User, serviceAccountPrefix) }

const serviceAccountPrefix = "system:serviceaccount:"

// Mapping returns the resource of kind gvk and whether it is namespaced; an
// error when the API server does not serve the kind.
func (r *Reviewer) Mapping(gvk schema.GroupVersionKind) (res schema.GroupVersionResource, namespaced bool, err error) {
	m, err := r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return res, false, fmt.Errorf("map kind %s: %w", gvk, err)
	}
	return m.Resource, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// MayList reports whether id may list res in namespace ns; "" asks about
// every namespace (and cluster-scoped resources).
func (r *Reviewer) MayList(ctx context.Context, id Identity, res schema.GroupVersionResource, ns string) (bool, error) {
	return r.may(ctx, id, authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Group: res.Group, Resource: res.Resource})
}

// MayGet reports whether id may get the object name of res in namespace
// ns ("" for a cluster-scoped resource).
func (r *Reviewer) MayGet(ctx context.Context, id Identity, res schema.GroupVersionResource, ns, name string) (bool, error) {
	return r.may(ctx, id, authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Group: res.Group, Resource: res.Resource, Name: name})
}

// MayImpersonateServiceAccount reports whether id may act as the
// ServiceAccount name of namespace ns (impersonate serviceaccounts).
func (r *Reviewer) MayImpersonateServiceAccount(ctx context.Context, id Identity, ns, name string) (bool, error) {
	return r.may(ctx, id, authorizationv1.ResourceAttributes{Namespace: ns, Verb: "impersonate", Resource: "serviceaccounts", Name: name})
}

// MayGetSecret reports whether id may get the Secret name of namespace ns.
func (r *Reviewer) MayGetSecret(ctx context.Context, id Identity, ns, name string) (bool, error) {
	return r.may(ctx, id, authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Resource: "secrets", Name: name})
}

func (r *Reviewer) may(ctx context.Context, id Identity, attrs authorizationv1.ResourceAttributes) (bool, error) {
	if r.RBAC != nil && IsServiceAccount(id) {
		return r.RBAC.Allows(ctx, id, attrs)
	}
	var key string
	var gen uint64
	if r.Cache != nil {
		key = cacheKey(id, attrs)
		var allowed, ok bool
		if allowed, ok, gen = r.Cache.get(key); ok {
			return allowed, nil
		}
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: id.User, Groups: id.Groups, UID: id.UID, Extra: id.Extra, ResourceAttributes: &attrs,
	}}
	out, err := r.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("review access of %s to %s %s in %q: %w", id.User, attrs.Verb, attrs.Resource, attrs.Namespace, err)
	}
	if r.Cache != nil {
		r.Cache.put(key, id, out.Status.Allowed, gen)
	}
	return out.Status.Allowed, nil
}
