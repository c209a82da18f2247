package target

import (
	"encoding/json"
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// ConfigForTarget builds the compiled-config entry of a namespaced Target.
// scope is the ceiling of the Target's namespace, nil when none applies.
// The entry has no Access: the caller sets what the Target's identity may
// list (control from SubjectAccessReviews), and without it the collector
// collects nothing.
func ConfigForTarget(t *v1alpha1.KollectTarget, p *v1alpha1.KollectProfile, scope *v1alpha1.ScopeRules) (busv1.TargetConfig, error) {
	cfg := busv1.TargetConfig{
		Kind: busv1.KindTarget, Namespace: t.Namespace, Name: t.Name, UID: string(t.UID),
		Generation: t.Generation, Suspend: t.Spec.Suspend,
	}
	// The collector reads the canonical spellings only.
	canonical := t.DeepCopy()
	v1alpha1.Normalize(canonical)
	return fill(cfg, canonical.Spec, p, scope)
}

// ConfigForClusterTarget builds the compiled-config entry of a ClusterTarget.
// A ClusterTarget is a cluster administrator's object and acts with the
// operator's reach: its Access covers every namespace its selection names.
func ConfigForClusterTarget(t *v1alpha1.KollectClusterTarget, p *v1alpha1.KollectProfile, scope *v1alpha1.ScopeRules) (busv1.TargetConfig, error) {
	cfg := busv1.TargetConfig{
		Kind: busv1.KindClusterTarget, Name: t.Name, UID: string(t.UID),
		Generation: t.Generation, Suspend: t.Spec.Suspend,
		Access: &busv1.TargetAccess{AllNamespaces: true},
	}
	return fill(cfg, t.Spec, p, scope)
}

func fill(cfg busv1.TargetConfig, selection any, p *v1alpha1.KollectProfile, scope *v1alpha1.ScopeRules) (busv1.TargetConfig, error) {
	var err error
	cfg.ProfileRef = busv1.NamespacedName{Namespace: p.Namespace, Name: p.Name}
	cfg.ProfileGeneration = p.Generation
	cfg.ProfileAnnotations = optIns(p.Annotations)
	if cfg.Profile, err = json.Marshal(p.Spec); err != nil {
		return cfg, fmt.Errorf("encode profile %s/%s: %w", p.Namespace, p.Name, err)
	}
	if cfg.Selection, err = json.Marshal(selection); err != nil {
		return cfg, fmt.Errorf("encode target %s: %w", cfg.Name, err)
	}
	if scope != nil {
		if cfg.Scope, err = json.Marshal(scope); err != nil {
			return cfg, fmt.Errorf("encode scope of %s: %w", cfg.Name, err)
		}
	}
	return cfg, nil
}

// optIns keeps only the Profile annotations extraction reads, so no other
// annotation (which might hold anything) travels on the bus.
func optIns(a map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range []string{v1alpha1.AnnotationAllowSecretExtraction, v1alpha1.AnnotationAllowFullResourceExport} {
		if v, ok := a[k]; ok {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Config is the compiled-config entry of a Target or ClusterTarget.
type Config = busv1.TargetConfig
