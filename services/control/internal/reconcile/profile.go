package reconcile

import (
	"context"
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
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
func (r *ProfileReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return run(ctx, r.Deps, req, &v1alpha1.KollectProfile{}, entry[*v1alpha1.KollectProfile]{},
		func(_ context.Context, obj *v1alpha1.KollectProfile, _ *ctrl.Result) error {
			if err := validateProfile(obj, r.Extract); err != nil {
				return err
			}
			ready(obj, "profile compiles")
			return nil
		})
}

// validateProfile compiles p and returns the first failure as a
// *v1alpha1.ReasonError with a one-line message, or nil when it compiles. A
// forbidden field (extract's missing opt-in) is SecretExtractionNotAllowed.
func validateProfile(p *v1alpha1.KollectProfile, opts extract.Options) error {
	_, errs := extract.CompileProfile(p, opts)
	if len(errs) == 0 {
		return nil
	}
	reason := v1alpha1.ReasonInvalidSpec
	if errs[0].Type == field.ErrorTypeForbidden {
		reason = v1alpha1.ReasonSecretExtractionNotAllowed
	}
	return &v1alpha1.ReasonError{Reason: reason, Err: errors.New(oneLine(errs[0].Error()))}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 1024 {
		s = s[:1024]
	}
	return s
}
