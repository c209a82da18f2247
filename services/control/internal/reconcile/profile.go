package reconcile

import (
	"context"
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
)

// ProfileReconciler validates KollectProfiles with the extraction compiler
// the collector uses. A Profile has no config entry of its own: Targets
// compile it in.
type ProfileReconciler struct {
	*Deps
	// Extract are the extraction options the collector compiles with.
	Extract extract.Options
}

// Reconcile sets Ready from the Profile's compile result.
func (r *ProfileReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	obj := &v1alpha1.KollectProfile{}
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return res, nil
		}
		return res, err
	}
	before := obj.DeepCopy()
	defer func() { err = errors.Join(err, r.finish(ctx, before, obj)) }()
	if reason, msg := validateProfile(obj, r.Extract); reason != "" {
		notReady(obj, reason, msg)
		return res, nil
	}
	ready(obj, "profile compiles")
	return res, nil
}

// validateProfile compiles p and returns the reason and one-line message of
// the first failure, or "" when it compiles.
func validateProfile(p *v1alpha1.KollectProfile, opts extract.Options) (reason, msg string) {
	_, errs := extract.CompileProfile(p, opts)
	if len(errs) == 0 {
		return "", ""
	}
	msg = errs[0].Error()
	reason = v1alpha1.ReasonInvalidSpec
	if strings.Contains(msg, v1alpha1.AnnotationAllowSecretExtraction) || strings.Contains(msg, v1alpha1.AnnotationAllowFullResourceExport) {
		reason = v1alpha1.ReasonSecretExtractionNotAllowed
	}
	return reason, oneLine(msg)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 1024 {
		s = s[:1024]
	}
	return s
}
