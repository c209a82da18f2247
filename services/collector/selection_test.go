package collector_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// images returns the row a Target of imageProfile has for d.
func images(t *testing.T, cfg busv1.TargetConfig, d *appsv1.Deployment) busv1.Row {
	return row(t, cfg, d, map[string]any{"image": d.Spec.Template.Spec.Containers[0].Image,
		"replicas": float64(*d.Spec.Replicas)})
}

func TestNamespaceLabelsDecideSelection(t *testing.T) {
	e := newEnv(t)
	a := namespace(t, "labels-a", map[string]string{"team": "labels"})
	b := namespace(t, "labels-b", nil)
	spec := v1alpha1.KollectTargetSpec{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "labels"}}}
	cfg := targetConfig(t, "labels-a", "by-label", 1, imageProfile("labels-a"), spec)
	e.start()
	e.put(cfg)
	da, db := deployment("labels-a", "app", "a:1", 1, nil), deployment("labels-b", "app", "b:1", 1, nil)
	create(t, da)
	create(t, db)
	e.waitRows("only the labelled namespace is collected", images(t, cfg, da))
	e.waitStatus(cfg, busv1.TargetStatus{CollectedCount: 1, MatchedNamespaces: []string{"labels-a"}})

	update(t, b, func() { b.Labels = map[string]string{"team": "labels"} })
	e.waitRows("a namespace that gains the label has its objects collected", images(t, cfg, da), images(t, cfg, db))
	e.waitStatus(cfg, busv1.TargetStatus{CollectedCount: 2, MatchedNamespaces: []string{"labels-a", "labels-b"}})

	update(t, a, func() { a.Labels[v1alpha1.LabelWatch] = "disabled" })
	e.waitRows("kollect.dev/watch=disabled on a namespace removes its rows", images(t, cfg, db))
}

func TestOptInCollectsOnlyWhatOptedIn(t *testing.T) {
	e := newEnv(t)
	ns := namespace(t, "optin", nil)
	spec := in("optin")
	spec.WatchMode = v1alpha1.WatchModeOptIn
	cfg := targetConfig(t, "optin", "opt-in", 1, imageProfile("optin"), spec)
	e.start()
	e.put(cfg)
	plain := deployment("optin", "plain", "plain:1", 1, nil)
	opted := deployment("optin", "opted", "opted:1", 1, map[string]string{v1alpha1.LabelWatch: "enabled"})
	out := deployment("optin", "out", "out:1", 1, map[string]string{v1alpha1.LabelWatch: "disabled"})
	for _, d := range []*appsv1.Deployment{plain, opted, out} {
		create(t, d)
	}
	e.waitRows("only the object labelled enabled is collected", images(t, cfg, opted))

	update(t, ns, func() { ns.Annotations = map[string]string{v1alpha1.AnnotationNamespaceWatch: "enabled"} })
	e.waitRows("a namespace annotated enabled opts in all but objects labelled disabled",
		images(t, cfg, plain), images(t, cfg, opted))
}

func TestSuspendedTargetKeepsItsRowsUntouched(t *testing.T) {
	e := newEnv(t)
	namespace(t, "suspend", nil)
	p := imageProfile("suspend")
	cfg := targetConfig(t, "suspend", "paused", 1, p, in("suspend"))
	// The witness sees the same objects; once its rows show a change, the
	// collector has handled that change for the suspended Target too.
	witness := targetConfig(t, "suspend", "witness", 1, p, in("suspend"))
	e.start()
	e.put(cfg)
	e.put(witness)
	d1, d2 := deployment("suspend", "one", "one:1", 1, nil), deployment("suspend", "two", "two:1", 1, nil)
	create(t, d1)
	create(t, d2)
	kept := []busv1.Row{images(t, cfg, d1), images(t, cfg, d2)}
	e.waitRows("both Targets collect", append(kept, images(t, witness, d1), images(t, witness, d2))...)

	suspended := targetConfig(t, "suspend", "paused", 2, p, func() v1alpha1.KollectTargetSpec {
		s := in("suspend")
		s.Suspend = true
		return s
	}())
	e.put(suspended)
	e.waitStatus(suspended, busv1.TargetStatus{CollectedCount: 2, MatchedNamespaces: []string{"suspend"},
		Outcome: busv1.Outcome{Reason: v1alpha1.ReasonSuspended, Message: "spec.suspend is true: collection is stopped and rows are kept"}})
	remove(t, d1)
	update(t, d2, func() { d2.Spec.Template.Spec.Containers[0].Image = "two:2" })
	d3 := deployment("suspend", "three", "three:1", 1, nil)
	create(t, d3)
	e.waitRows("a suspended Target's rows stay as they were", append(kept, images(t, witness, d2), images(t, witness, d3))...)

	resumed := targetConfig(t, "suspend", "paused", 3, p, in("suspend"))
	e.put(resumed)
	e.waitRows("a resumed Target catches up", images(t, resumed, d2), images(t, resumed, d3),
		images(t, witness, d2), images(t, witness, d3))
}

func TestClusterTargetAndTargetKeepSeparateRows(t *testing.T) {
	e := newEnv(t)
	platform := map[string]string{"platform": "scope"}
	n1 := namespace(t, "scope-1", map[string]string{"platform": "scope", "team": "one"})
	n2 := namespace(t, "scope-2", map[string]string{"platform": "scope", "team": "two"})
	p := imageProfile("scope-1")
	cluster := clusterTargetConfig(t, "all-scope", p, v1alpha1.KollectClusterTargetSpec{
		NamespaceSelector: metav1.LabelSelector{MatchLabels: platform}})
	own := targetConfig(t, "scope-1", "own", 1, p, in("scope-1"))
	nsProfile := profile("scope-1", "namespaces", namespaceGVK, attr("team", "$.metadata.labels.team"))
	namespaces := clusterTargetConfig(t, "scope-namespaces", nsProfile, v1alpha1.KollectClusterTargetSpec{
		NamespaceSelector: metav1.LabelSelector{MatchLabels: platform},
		ObjectSelection:   v1alpha1.ObjectSelection{LabelSelector: &metav1.LabelSelector{MatchLabels: platform}}})
	e.start()
	for _, c := range []busv1.TargetConfig{cluster, own, namespaces} {
		e.put(c)
	}
	d1, d2 := deployment("scope-1", "app", "one:1", 1, nil), deployment("scope-2", "app", "two:1", 1, nil)
	create(t, d1)
	create(t, d2)
	e.waitRows("the ClusterTarget collects across namespaces, the Target only its own, cluster-scoped kinds have no namespace",
		images(t, cluster, d1), images(t, cluster, d2), images(t, own, d1),
		row(t, namespaces, n1, map[string]any{"team": "one"}), row(t, namespaces, n2, map[string]any{"team": "two"}))
	e.waitStatus(cluster, busv1.TargetStatus{CollectedCount: 2, MatchedNamespaces: []string{"scope-1", "scope-2"}})
	e.waitStatus(namespaces, busv1.TargetStatus{CollectedCount: 2, MatchedNamespaces: []string{}})
}
