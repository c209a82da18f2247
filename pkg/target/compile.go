package target

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
)

// Compiled is a Target or ClusterTarget ready to evaluate objects. It is
// immutable and safe for concurrent use.
type Compiled struct {
	// Config is the entry it was compiled from.
	Config busv1.TargetConfig
	// GVK is the Profile's targetGVK.
	GVK schema.GroupVersionKind
	// Metrics are the Profile's spec.metrics, the gauges the collector
	// exports from the rows.
	Metrics []v1alpha1.ProfileMetric
	// AttributeTypes is the JSON of the Profile's declared attribute types
	// (busv1.AttributeTypes: every attribute's, any for one without),
	// which the collector writes beside each row; nil when the Profile
	// has no attributes.
	AttributeTypes []byte

	selector  *selection.Selector
	extractor *extract.Extractor
	allowed   sets.Set[string] // nil: no Scope allow list
	denied    sets.Set[string]
}

// Compile builds the evaluator of a compiled-config entry. It fails when the
// entry is malformed or its expressions do not compile, which control's
// validation should have prevented.
func Compile(cfg busv1.TargetConfig, opts extract.Options) (*Compiled, error) {
	ref := cfg.Name
	if cfg.Namespace != "" {
		ref = cfg.Namespace + "/" + cfg.Name
	}
	var prof v1alpha1.KollectProfileSpec
	if err := json.Unmarshal(cfg.Profile, &prof); err != nil {
		return nil, fmt.Errorf("decode profile of %s %s: %w", cfg.Kind, ref, err)
	}
	gvk := schema.GroupVersionKind{Group: prof.TargetGVK.Group, Version: prof.TargetGVK.Version, Kind: prof.TargetGVK.Kind}
	spec, err := selectionSpec(cfg, gvk)
	if err != nil {
		return nil, fmt.Errorf("decode selection of %s %s: %w", cfg.Kind, ref, err)
	}
	c := &Compiled{Config: cfg, GVK: gvk, Metrics: prof.Metrics}
	if c.AttributeTypes, err = attributeTypes(prof.Attributes); err != nil {
		return nil, fmt.Errorf("encode attribute types of %s %s: %w", cfg.Kind, ref, err)
	}
	spec.Extract = opts
	sel, errs := selection.Compile(spec)
	if len(errs) > 0 {
		return nil, fmt.Errorf("compile %s %s: %w", cfg.Kind, ref, errs.ToAggregate())
	}
	c.selector = sel
	x, errs := extract.Compile(extract.SpecFromProfile(prof, cfg.ProfileAnnotations), opts)
	if len(errs) > 0 {
		return nil, fmt.Errorf("compile profile %s of %s %s: %w", cfg.ProfileRef.Name, cfg.Kind, ref, errs.ToAggregate())
	}
	c.extractor = x
	if len(cfg.Scope) > 0 {
		var scope v1alpha1.ScopeRules
		if err := json.Unmarshal(cfg.Scope, &scope); err != nil {
			return nil, fmt.Errorf("decode scope of %s %s: %w", cfg.Kind, ref, err)
		}
		if scope.AllowedNamespaces != nil {
			c.allowed = sets.New(scope.AllowedNamespaces...)
		}
		c.denied = sets.New(scope.DeniedNamespaces...)
	}
	return c, nil
}

func selectionSpec(cfg busv1.TargetConfig, gvk schema.GroupVersionKind) (selection.Spec, error) {
	if cfg.Kind == busv1.KindClusterTarget {
		var s v1alpha1.KollectClusterTargetSpec
		if err := json.Unmarshal(cfg.Selection, &s); err != nil {
			return selection.Spec{}, err
		}
		return selection.ForClusterTarget(&v1alpha1.KollectClusterTarget{Spec: s}, gvk), nil
	}
	var s v1alpha1.KollectTargetSpec
	if err := json.Unmarshal(cfg.Selection, &s); err != nil {
		return selection.Spec{}, err
	}
	t := &v1alpha1.KollectTarget{Spec: s}
	t.Namespace = cfg.Namespace
	return selection.ForTarget(t, gvk), nil
}

// Fields returns the object fields the Target's Profile and selection read,
// for the informer transform.
func (c *Compiled) Fields() *extract.FieldSet { return c.extractor.Fields() }

// NeedsWholeObject reports whether the Profile or a matchPolicy may read any
// field of the object.
func (c *Compiled) NeedsWholeObject() bool {
	return c.extractor.NeedsWholeObject() || c.selector.HasPolicy()
}

// Selector returns the compiled selection.
func (c *Compiled) Selector() *selection.Selector { return c.selector }

// Namespace reports whether the Target collects from ns: its own selection
// within what its identity may list (Config.Access) and its Scope's allowed
// and denied namespaces.
func (c *Compiled) Namespace(ns selection.Namespace) bool {
	if !c.Config.Access.AllowsNamespace(ns.Name) {
		return false
	}
	if c.denied.Has(ns.Name) || (c.allowed != nil && !c.allowed.Has(ns.Name)) {
		return false
	}
	return c.selector.Namespace(ns)
}

// attributeTypes returns the JSON of attrs' declared types (canonical: keys
// sorted), nil when there is no attribute.
func attributeTypes(attrs []v1alpha1.Attribute) ([]byte, error) {
	if len(attrs) == 0 {
		return nil, nil
	}
	m := make(busv1.AttributeTypes, len(attrs))
	for _, a := range attrs {
		t := string(a.Type)
		if t == "" {
			t = string(v1alpha1.AttributeAny)
		}
		m[a.Name] = t
	}
	return json.Marshal(m)
}
