package collect

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/target"
	"kollect.dev/kollect/services/cli/internal/manifests"
)

// plan is the compiled Targets of a config folder, grouped by kind.
type plan struct {
	targets []*target.Compiled
	byGVK   map[schema.GroupVersionKind][]*target.Compiled
}

// compile turns every Target and ClusterTarget of set into evaluators. A
// Target whose Profile is missing or does not compile is an error naming it.
func compile(set *manifests.Set, opts extract.Options) (*plan, error) {
	p := &plan{byGVK: map[schema.GroupVersionKind][]*target.Compiled{}}
	var errs []error
	for _, t := range set.Targets {
		prof := set.Profile(t.Namespace, t.Spec.ProfileRef.Name)
		if prof == nil {
			errs = append(errs, fmt.Errorf("KollectTarget %s/%s: spec.profileRef: KollectProfile %s/%s not found in the config folder",
				t.Namespace, t.Name, t.Namespace, t.Spec.ProfileRef.Name))
			continue
		}
		cfg, err := target.ConfigForTarget(t, prof, scopeOf(set, t.Namespace))
		// The command line lists with the user's own credentials: the API
		// server bounds its reach, there is no operator identity to lend.
		cfg.Access = &busv1.TargetAccess{AllNamespaces: true}
		errs = append(errs, p.add(cfg, err, opts))
	}
	for _, t := range set.ClusterTargets {
		prof := set.Profile(t.Spec.ProfileRef.Namespace, t.Spec.ProfileRef.Name)
		if prof == nil {
			errs = append(errs, fmt.Errorf("KollectClusterTarget %s: spec.profileRef: KollectProfile %s/%s not found in the config folder",
				t.Name, t.Spec.ProfileRef.Namespace, t.Spec.ProfileRef.Name))
			continue
		}
		var scope *v1alpha1.ScopeRules
		if len(set.ClusterScopes) > 0 {
			scope = &set.ClusterScopes[0].Spec.ScopeRules
		}
		cfg, err := target.ConfigForClusterTarget(t, prof, scope)
		errs = append(errs, p.add(cfg, err, opts))
	}
	return p, errors.Join(errs...)
}

func (p *plan) add(cfg target.Config, err error, opts extract.Options) error {
	if err != nil {
		return err
	}
	if cfg.Suspend {
		return nil
	}
	c, err := target.Compile(cfg, opts)
	if err != nil {
		return err
	}
	p.targets = append(p.targets, c)
	p.byGVK[c.GVK] = append(p.byGVK[c.GVK], c)
	return nil
}

// scopeOf returns the ceiling of namespace ns: its one KollectScope, if the
// folder has one.
func scopeOf(set *manifests.Set, ns string) *v1alpha1.ScopeRules {
	for _, s := range set.Scopes {
		if s.Namespace == ns {
			return &s.Spec.ScopeRules
		}
	}
	return nil
}
