package collector_test

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/collector"
)

// TestCollectorFollowsTheClusterAcrossRestarts is the collector's acceptance
// test: rows follow creates, updates and deletes of Deployments and of a
// custom resource whose CRD is installed after the collector started; a
// collector restarted after objects (and a Target) were deleted while it was
// down removes exactly their rows and rewrites nothing else.
func TestCollectorFollowsTheClusterAcrossRestarts(t *testing.T) {
	e := newEnv(t)
	ns := "acceptance"
	namespace(t, ns, nil)
	deploys := targetConfig(t, ns, "deploys", 1, imageProfile(ns), in(ns))
	widgets := targetConfig(t, ns, "widgets", 1, profile(ns, "widgets", widgetGVK, attr("size", "$.spec.size")), in(ns))
	dbSpec := in(ns)
	dbSpec.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"}}
	databases := targetConfig(t, ns, "databases", 1, imageProfile(ns), dbSpec)

	first := e.start()
	for _, cfg := range []busv1.TargetConfig{deploys, widgets, databases} {
		e.put(cfg)
	}
	web := deployment(ns, "web", "nginx:1", 2, nil)
	api := deployment(ns, "api", "api:1", 1, nil)
	db := deployment(ns, "db", "postgres:15", 1, map[string]string{"tier": "db"})
	cache := deployment(ns, "cache", "redis:7", 1, map[string]string{"tier": "db"})
	for _, d := range []*appsv1.Deployment{web, api, db, cache} {
		create(t, d)
	}
	img := func(cfg busv1.TargetConfig, d *appsv1.Deployment, image string, replicas int) busv1.Row {
		return row(t, cfg, d, map[string]any{"image": image, "replicas": float64(replicas)})
	}
	e.waitRows("rows of created Deployments",
		img(deploys, web, "nginx:1", 2), img(deploys, api, "api:1", 1), img(deploys, db, "postgres:15", 1),
		img(deploys, cache, "redis:7", 1), img(databases, db, "postgres:15", 1), img(databases, cache, "redis:7", 1))

	update(t, web, func() { web.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	remove(t, api)
	e.waitRows("rows after an update and a delete",
		img(deploys, web, "nginx:2", 2), img(deploys, db, "postgres:15", 1), img(deploys, cache, "redis:7", 1),
		img(databases, db, "postgres:15", 1), img(databases, cache, "redis:7", 1))

	notServed := busv1.Outcome{Reason: v1alpha1.ReasonProgressing,
		Message: "the API server does not serve test.kollect.dev/v1/Widget; waiting for it (is its CRD installed?)"}
	e.waitStatus(widgets, busv1.TargetStatus{MatchedNamespaces: []string{ns}, Outcome: notServed})

	installWidgets(t)
	w1, w2 := widget(ns, "w1", 3), widget(ns, "w2", 5)
	create(t, w1)
	create(t, w2)
	size := func(w *unstructured.Unstructured, n int) busv1.Row {
		return row(t, widgets, w, map[string]any{"size": float64(n)})
	}
	e.waitRows("rows of Widgets created after their CRD was installed",
		img(deploys, web, "nginx:2", 2), img(deploys, db, "postgres:15", 1), img(deploys, cache, "redis:7", 1),
		img(databases, db, "postgres:15", 1), img(databases, cache, "redis:7", 1), size(w1, 3), size(w2, 5))
	e.waitStatus(widgets, busv1.TargetStatus{CollectedCount: 2, MatchedNamespaces: []string{ns}})

	first.stop(t)
	remove(t, db)
	remove(t, w1)
	update(t, web, func() { web.Spec.Template.Spec.Containers[0].Image = "nginx:3" })
	e.remove(databases)
	before := e.revisions()
	seq := e.rowsSeq()

	e.start(func(c *collector.Config) { c.Workers = 1 })
	want := []busv1.Row{img(deploys, web, "nginx:3", 2), img(deploys, cache, "redis:7", 1), size(w2, 5)}
	e.waitRows("rows after a restart that missed two deletes, an update and a deleted Target", want...)
	// Objects created now are queued after everything the relist queued,
	// and one worker takes them in order: once their rows are there, the
	// restart has done all it will do.
	marker, wmarker := deployment(ns, "marker", "marker:1", 1, nil), widget(ns, "marker", 1)
	create(t, marker)
	create(t, wmarker)
	want = append(want, img(deploys, marker, "marker:1", 1), size(wmarker, 1))
	e.waitRows("rows of the markers", want...)

	after := e.revisions()
	for _, r := range []busv1.Row{img(deploys, cache, "redis:7", 1), size(w2, 5)} {
		k := bus.RowKey(r.Key())
		if before[k] != after[k] {
			t.Errorf("unchanged row %s was rewritten: revision %d became %d", k, before[k], after[k])
		}
	}
	// 4 deletes (db twice, cache of the deleted Target, w1), 1 update (web)
	// and the 2 markers.
	if got := e.rowsSeq() - seq; got != 7 {
		t.Errorf("the restarted collector wrote %d row messages, want 7", got)
	}
	e.waitStatus(deploys, busv1.TargetStatus{CollectedCount: 3, MatchedNamespaces: []string{ns}})

	remove(t, widgetCRD())
	e.waitRows("rows after the Widget CRD was deleted",
		img(deploys, web, "nginx:3", 2), img(deploys, cache, "redis:7", 1), img(deploys, marker, "marker:1", 1))
	e.waitStatus(widgets, busv1.TargetStatus{MatchedNamespaces: []string{ns}, Outcome: notServed})
}

// revisions returns the KV revision of every row, by key.
func (e *env) revisions() map[string]uint64 {
	e.t.Helper()
	entries, err := e.entries()
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]uint64{}
	for k, v := range entries {
		out[k] = v.Revision()
	}
	return out
}

// rowsSeq returns the last sequence of the rows bucket's stream: every put
// and delete adds one.
func (e *env) rowsSeq() uint64 {
	e.t.Helper()
	s, err := e.nats.JS.Stream(e.ctx, bus.KVStreamName(bus.BucketRows))
	if err != nil {
		e.t.Fatal(err)
	}
	info, err := s.Info(e.ctx)
	if err != nil {
		e.t.Fatal(fmt.Errorf("rows stream info: %w", err))
	}
	return info.State.LastSeq
}
