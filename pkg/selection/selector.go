package selection

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
)

// Spec is the selection part of a Target or ClusterTarget spec.
type Spec struct {
	// OwnNamespace is the Target's namespace; empty for a ClusterTarget.
	OwnNamespace string
	// GVK is the Profile's targetGVK; resource rules naming another kind
	// never match.
	GVK schema.GroupVersionKind
	// NamespaceSelector is spec.namespaceSelector (nil when absent).
	NamespaceSelector *metav1.LabelSelector
	v1alpha1.NamespaceFilters
	v1alpha1.ObjectSelection
	// Extract are the operator's extraction options (CEL cost limit,
	// redaction names) matchPolicy predicates compile with, so a predicate
	// sees the object redacted exactly as the Profile's expressions do.
	Extract extract.Options
}

// ForTarget returns the selection of a KollectTarget.
func ForTarget(t *v1alpha1.KollectTarget, gvk schema.GroupVersionKind) Spec {
	return Spec{OwnNamespace: t.Namespace, GVK: gvk, NamespaceSelector: t.Spec.NamespaceSelector,
		NamespaceFilters: t.Spec.NamespaceFilters, ObjectSelection: t.Spec.ObjectSelection}
}

// ForClusterTarget returns the selection of a KollectClusterTarget.
func ForClusterTarget(t *v1alpha1.KollectClusterTarget, gvk schema.GroupVersionKind) Spec {
	sel := t.Spec.NamespaceSelector
	return Spec{GVK: gvk, NamespaceSelector: &sel,
		NamespaceFilters: t.Spec.NamespaceFilters, ObjectSelection: t.Spec.ObjectSelection}
}

// Selector is a compiled selection.
type Selector struct {
	nsSelector labels.Selector // nil: no selector
	included   sets.Set[string]
	excluded   sets.Set[string]
	nsExclude  labels.Selector // nil: none
	allNS      bool            // neither selector nor included list: every namespace

	objAll    bool // no labelSelector, names or rules: every object
	objLabels labels.Selector
	names     sets.Set[string]
	rules     []rule
	optIn     bool
}

type rule struct {
	never     bool // gvk names another kind
	nsLabels  labels.Selector
	objLabels labels.Selector
	policy    *extract.Predicate
}

// Compile builds a Selector. Errors name the field under spec.
func Compile(s Spec) (*Selector, field.ErrorList) {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	sel := &Selector{
		included: sets.New(s.IncludedNamespaces...),
		excluded: sets.New(s.ExcludedNamespaces...),
		names:    sets.New(s.Names...),
		optIn:    s.WatchMode == v1alpha1.WatchModeOptIn,
	}
	sel.nsSelector, errs = labelSelector(s.NamespaceSelector, spec.Child("namespaceSelector"), errs)
	sel.nsExclude, errs = labelSelector(s.NamespaceExcludeSelector, spec.Child("namespaceExcludeSelector"), errs)
	sel.objLabels, errs = labelSelector(s.LabelSelector, spec.Child("labelSelector"), errs)
	sel.allNS = sel.nsSelector == nil && len(s.IncludedNamespaces) == 0
	sel.objAll = sel.objLabels == nil && len(s.Names) == 0 && len(s.ResourceRules) == 0
	for i, r := range s.ResourceRules {
		cr, rerrs := compileRule(r, s.GVK, s.Extract, spec.Child("resourceRules").Index(i))
		errs = append(errs, rerrs...)
		sel.rules = append(sel.rules, cr)
	}
	return sel, errs
}

func compileRule(r v1alpha1.ResourceRule, gvk schema.GroupVersionKind, opts extract.Options, p *field.Path) (rule, field.ErrorList) {
	var errs field.ErrorList
	out := rule{}
	if r.GVK != nil {
		out.never = r.GVK.Group != gvk.Group || r.GVK.Version != gvk.Version || r.GVK.Kind != gvk.Kind
	}
	out.nsLabels, errs = labelSelector(r.NamespaceSelector, p.Child("namespaceSelector"), errs)
	if len(r.MatchLabels) > 0 || len(r.MatchExpressions) > 0 {
		out.objLabels, errs = labelSelector(&metav1.LabelSelector{MatchLabels: r.MatchLabels,
			MatchExpressions: r.MatchExpressions}, p.Child("matchLabels"), errs)
	}
	if r.MatchPolicy != "" {
		pred, err := extract.CompilePredicateOptions(r.MatchPolicy, opts)
		if err != nil {
			errs = append(errs, field.Invalid(p.Child("matchPolicy"), r.MatchPolicy, err.Error()))
		}
		out.policy = pred
	}
	return out, errs
}

// labelSelector converts ls; nil stays nil so that "absent" and "matches
// everything" ({}) remain different.
func labelSelector(ls *metav1.LabelSelector, p *field.Path, errs field.ErrorList) (labels.Selector, field.ErrorList) {
	if ls == nil {
		return nil, errs
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, append(errs, field.Invalid(p, ls.String(), fmt.Sprintf("invalid label selector: %v", err)))
	}
	return s, errs
}
