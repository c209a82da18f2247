package collector_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

func TestTargetChangesReevaluateCachedObjects(t *testing.T) {
	e := newEnv(t)
	ns := "changes"
	namespace(t, ns, nil)
	tiers := func(values ...string) v1alpha1.KollectTargetSpec {
		s := in(ns)
		s.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: values}}}
		return s
	}
	v1 := targetConfig(t, ns, "apps", 1, imageProfile(ns), tiers("web", "db"))
	e.start()
	e.put(v1)
	web := deployment(ns, "web", "web:1", 1, map[string]string{"tier": "web"})
	db := deployment(ns, "db", "db:1", 1, map[string]string{"tier": "db"})
	other := deployment(ns, "other", "other:1", 1, map[string]string{"tier": "batch"})
	create(t, web)
	create(t, db)
	create(t, other)
	e.waitRows("the first selection", images(t, v1, web), images(t, v1, db))
	writes := e.rowWrites()

	grown := imageProfile(ns)
	grown.Generation = 2
	grown.Spec.Attributes = append(grown.Spec.Attributes, v1alpha1.Attribute{Name: "ports",
		Path: "$.spec.template.spec.containers[*].ports[*].containerPort", Type: v1alpha1.AttributeList})
	v2 := targetConfig(t, ns, "apps", 2, grown, tiers("web"))
	e.put(v2)
	e.waitRows("a narrower selection with a larger profile", row(t, v2, web, map[string]any{
		"image": "web:1", "replicas": float64(1), "ports": []any{}}))
	got := 0
	for _, n := range writes() {
		got += n
	}
	if got != 2 {
		t.Errorf("the change wrote %d row messages, want 2 (one delete, one update): the informer restart must not churn rows", got)
	}
	e.waitStatus(v2, busv1.TargetStatus{CollectedCount: 1, MatchedNamespaces: []string{ns}})

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"mode": "fast"}}
	create(t, cm)
	v3 := targetConfig(t, ns, "apps", 3, profile(ns, "apps", configMapGVK, attr("mode", "$.data.mode")), in(ns))
	e.put(v3)
	e.waitRows("a Target that changes kind swaps its rows", row(t, v3, cm, map[string]any{"mode": "fast"}))
}
