package inventory

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/selection"
)

// Resolved is what a cluster inventory rolls up.
type Resolved struct {
	// TargetRefs are the ClusterTargets, sorted.
	TargetRefs []string
	// Namespaces are the selected source namespaces, sorted; nil means every
	// namespace (neither namespaces nor namespaceSelector set).
	Namespaces []string
	// Dedupe is the inventory's dedupe mode, defaulted to keepAll.
	Dedupe busv1.Dedupe
}

// ResolveCluster resolves spec against the existing ClusterTargets and
// namespaces. targetRefs and targetSelector add up; namespaces and
// namespaceSelector add up.
func ResolveCluster(spec v1alpha1.KollectClusterInventorySpec, targets []metav1.ObjectMeta, namespaces []selection.Namespace) (Resolved, error) {
	r := Resolved{Dedupe: busv1.DedupeKeepAll}
	if spec.Dedupe == v1alpha1.DedupeByResourceUID {
		r.Dedupe = busv1.DedupeByResourceUID
	}
	r.TargetRefs = slices.Clone(spec.TargetRefs)
	if spec.TargetSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(spec.TargetSelector)
		if err != nil {
			return r, fmt.Errorf("spec.targetSelector: %w", err)
		}
		for _, t := range targets {
			if sel.Matches(labels.Set(t.Labels)) {
				r.TargetRefs = append(r.TargetRefs, t.Name)
			}
		}
	}
	r.TargetRefs = sortUnique(r.TargetRefs)
	if spec.NamespaceSelector == nil && spec.Namespaces == nil {
		return r, nil
	}
	r.Namespaces = append([]string{}, spec.Namespaces...)
	if spec.NamespaceSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(spec.NamespaceSelector)
		if err != nil {
			return r, fmt.Errorf("spec.namespaceSelector: %w", err)
		}
		for _, ns := range namespaces {
			if sel.Matches(labels.Set(ns.Labels)) {
				r.Namespaces = append(r.Namespaces, ns.Name)
			}
		}
	}
	r.Namespaces = sortUnique(r.Namespaces)
	return r, nil
}

func sortUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
