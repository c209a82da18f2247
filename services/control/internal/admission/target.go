package admission

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/access"
	"kollect.dev/kollect/services/control/internal/policy"
	"kollect.dev/kollect/services/control/internal/requester"
)

// Reader reads objects (the manager's cached client).
type Reader = client.Reader

// target checks that the requesting user may act as the ServiceAccount
// the Target names, the Target's Profile (when it exists already), its Scope and
// that the requesting user may list the kind in every namespace it reaches
// beyond its own.
func (v *Validator) target(ctx context.Context, req admission.Request, t *v1alpha1.KollectTarget) (string, error) {
	if n := len(t.Spec.IncludedNamespaces); n > MaxIncludedNamespaces {
		return fmt.Sprintf("spec.includedNamespaces: %d namespaces, more than the %d allowed", n, MaxIncludedNamespaces), nil
	}
	if err := t.Spec.ProfileRef.DecodeError(); err != nil {
		return fmt.Sprintf("spec.profileRef: %v", err), nil
	}
	if msg, err := v.identityChoice(ctx, req, t); msg != "" || err != nil {
		return msg, err
	}
	var prof v1alpha1.KollectProfile
	err := v.Reader.Get(ctx, client.ObjectKey{Namespace: t.Namespace, Name: t.Spec.ProfileRef.Name}, &prof)
	if apierrors.IsNotFound(err) {
		return "", nil // reported as ProfileNotFound at reconcile
	}
	if err != nil {
		return "", fmt.Errorf("get profile %s/%s: %w", t.Namespace, t.Spec.ProfileRef.Name, err)
	}
	gvk := prof.Spec.TargetGVK
	scope, err := v.Scopes.Honoured(ctx, t.Namespace)
	if err != nil {
		return "", err
	}
	if scope != nil {
		if !policy.AllowsGVK(&scope.Spec.ScopeRules, gvk) {
			return fmt.Sprintf("spec.profileRef: KollectScope %s does not allow kind %s/%s %s", scope.Name, gvk.Group, gvk.Version, gvk.Kind), nil
		}
		if msg := policy.NamespaceViolation(&scope.Spec.ScopeRules, t.Spec.IncludedNamespaces); msg != "" {
			return msg, nil
		}
	}
	return v.crossNamespace(ctx, req, t, gvk)
}

// crossNamespace runs a SubjectAccessReview for every namespace other than
// the Target's own that it names, and a cluster-wide one when it selects by
// label or by default reaches every namespace.
func (v *Validator) crossNamespace(ctx context.Context, req admission.Request, t *v1alpha1.KollectTarget, gvk v1alpha1.GroupVersionKind) (string, error) {
	var where []string
	wide := t.Spec.NamespaceSelector != nil || len(t.Spec.IncludedNamespaces) == 0
	if wide {
		where = []string{""}
	}
	for _, ns := range t.Spec.IncludedNamespaces {
		if ns != t.Namespace && !slices.Contains(where, ns) {
			where = append(where, ns)
		}
	}
	if len(where) == 0 {
		return "", nil
	}
	m, err := v.Mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version)
	if err != nil {
		return fmt.Sprintf("spec.profileRef: kind %s/%s %s is not served by this cluster", gvk.Group, gvk.Version, gvk.Kind), nil //nolint:nilerr // an unserved kind is a denial message, not an error
	}
	for _, ns := range where {
		ok, err := v.mayList(ctx, req, m.Resource, ns)
		if err != nil {
			return "", err
		}
		if ok {
			continue
		}
		if ns == "" {
			return fmt.Sprintf("spec: selecting namespaces by label or, with no namespace filter, every namespace needs "+
				"permission to list %s cluster-wide, which %s does not have; set includedNamespaces: [%s]",
				m.Resource.Resource, req.UserInfo.Username, t.Namespace), nil
		}
		if !callerOf(ctx).verified {
			// The body's user may not be the sender: do not say which
			// namespace answered, so that the webhook is no oracle.
			return fmt.Sprintf("spec.includedNamespaces: %s may not list %s in one of the namespaces listed",
				req.UserInfo.Username, m.Resource.Resource), nil
		}
		return fmt.Sprintf("spec.includedNamespaces: %s may not list %s in namespace %s",
			req.UserInfo.Username, m.Resource.Resource, ns), nil
	}
	return "", nil
}

func (v *Validator) mayList(ctx context.Context, req admission.Request, res schema.GroupVersionResource, ns string) (bool, error) {
	r := access.Reviewer{Kube: v.Kube, Mapper: v.Mapper}
	return r.MayList(ctx, identity(req), res, ns)
}

// identityChoice returns a denial when the requesting user may not use the
// identity obj chooses: act as the ServiceAccount a Target names, get the
// Secrets a sink names. Control checks the same at every reconcile, for the
// requester the Stamper recorded.
func (v *Validator) identityChoice(ctx context.Context, req admission.Request, obj client.Object) (string, error) {
	obj.SetNamespace(req.Namespace)
	c, _, ok := requester.Of(obj, v.DefaultServiceAccount)
	if !ok || c.Empty() {
		return "", nil
	}
	return requester.Denial(ctx, &access.Reviewer{Kube: v.Kube, Mapper: v.Mapper}, identity(req), req.Namespace, c)
}
