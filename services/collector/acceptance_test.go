package collector_test

import (
	"fmt"
	"strings"
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
// down removes exactly their rows and rewrites nothing else; a deleted CRD
// takes its rows with it.
func TestCollectorFollowsTheClusterAcrossRestarts(t *testing.T) {
	a := newAcceptance(t)
	first := a.e.start()
	for _, cfg := range []busv1.TargetConfig{a.deploys, a.widgets, a.databases} {
		a.e.put(cfg)
	}
	a.followDeployments()
	a.followWidgetsOfALateCRD()
	first.stop(t)
	a.restartAfterChangesWhileDown()
	a.dropRowsOfADeletedCRD()
}

// acceptance holds the scenario's Targets and objects.
type acceptance struct {
	t                           *testing.T
	e                           *env
	deploys, widgets, databases busv1.TargetConfig
	web, api, db, cache, marker *appsv1.Deployment
	w1, w2, wmarker             *unstructured.Unstructured
	notServed                   busv1.Outcome
}

const accNS = "acceptance"

func newAcceptance(t *testing.T) *acceptance {
	namespace(t, accNS, nil)
	dbSpec := in(accNS)
	dbSpec.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"}}
	db := map[string]string{"tier": "db"}
	return &acceptance{
		t: t, e: newEnv(t),
		deploys:   targetConfig(t, accNS, "deploys", 1, imageProfile(accNS), in(accNS)),
		widgets:   targetConfig(t, accNS, "widgets", 1, profile(accNS, "widgets", widgetGVK, attr("size", "$.spec.size")), in(accNS)),
		databases: targetConfig(t, accNS, "databases", 1, imageProfile(accNS), dbSpec),
		web:       deployment(accNS, "web", "nginx:1", 2, nil), api: deployment(accNS, "api", "api:1", 1, nil),
		db: deployment(accNS, "db", "postgres:15", 1, db), cache: deployment(accNS, "cache", "redis:7", 1, db),
		marker: deployment(accNS, "marker", "marker:1", 1, nil),
		w1:     widget(accNS, "w1", 3), w2: widget(accNS, "w2", 5), wmarker: widget(accNS, "marker", 1),
		notServed: busv1.Outcome{Reason: v1alpha1.ReasonProgressing,
			Message: "the API server does not serve test.kollect.dev/v1/Widget; waiting for it (is its CRD installed?)"},
	}
}

func (a *acceptance) img(cfg busv1.TargetConfig, d *appsv1.Deployment, image string, replicas int) busv1.Row {
	return row(a.t, cfg, d, map[string]any{"image": image, "replicas": float64(replicas)})
}

func (a *acceptance) size(w *unstructured.Unstructured, n int) busv1.Row {
	return row(a.t, a.widgets, w, map[string]any{"size": float64(n)})
}

func (a *acceptance) followDeployments() {
	t, e := a.t, a.e
	for _, d := range []*appsv1.Deployment{a.web, a.api, a.db, a.cache} {
		create(t, d)
	}
	e.waitRows("rows of created Deployments",
		a.img(a.deploys, a.web, "nginx:1", 2), a.img(a.deploys, a.api, "api:1", 1), a.img(a.deploys, a.db, "postgres:15", 1),
		a.img(a.deploys, a.cache, "redis:7", 1), a.img(a.databases, a.db, "postgres:15", 1), a.img(a.databases, a.cache, "redis:7", 1))
	update(t, a.web, func() { a.web.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	remove(t, a.api)
	e.waitRows("rows after an update and a delete",
		a.img(a.deploys, a.web, "nginx:2", 2), a.img(a.deploys, a.db, "postgres:15", 1), a.img(a.deploys, a.cache, "redis:7", 1),
		a.img(a.databases, a.db, "postgres:15", 1), a.img(a.databases, a.cache, "redis:7", 1))
}

func (a *acceptance) followWidgetsOfALateCRD() {
	t, e := a.t, a.e
	e.waitStatus(a.widgets, busv1.TargetStatus{MatchedNamespaces: []string{accNS}, Outcome: a.notServed})
	installWidgets(t)
	create(t, a.w1)
	create(t, a.w2)
	e.waitRows("rows of Widgets created after their CRD was installed",
		a.img(a.deploys, a.web, "nginx:2", 2), a.img(a.deploys, a.db, "postgres:15", 1), a.img(a.deploys, a.cache, "redis:7", 1),
		a.img(a.databases, a.db, "postgres:15", 1), a.img(a.databases, a.cache, "redis:7", 1), a.size(a.w1, 3), a.size(a.w2, 5))
	e.waitStatus(a.widgets, busv1.TargetStatus{CollectedCount: 2, MatchedNamespaces: []string{accNS}})
}

func (a *acceptance) restartAfterChangesWhileDown() {
	t, e := a.t, a.e
	remove(t, a.db)
	remove(t, a.w1)
	update(t, a.web, func() { a.web.Spec.Template.Spec.Containers[0].Image = "nginx:3" })
	e.remove(a.databases)
	before, seq := e.revisions(), e.rowsSeq()
	writes := e.rowWrites()

	e.start(func(c *collector.Config) { c.Workers = 1 })
	want := []busv1.Row{a.img(a.deploys, a.web, "nginx:3", 2), a.img(a.deploys, a.cache, "redis:7", 1), a.size(a.w2, 5)}
	e.waitRows("rows after a restart that missed two deletes, an update and a deleted Target", want...)
	// Objects created now are queued after everything the relist queued,
	// and one worker takes them in order: once their rows are there, the
	// restart has done all it will do.
	create(t, a.marker)
	create(t, a.wmarker)
	e.waitRows("rows of the markers", append(want, a.img(a.deploys, a.marker, "marker:1", 1), a.size(a.wmarker, 1))...)

	after := e.revisions()
	for _, r := range []busv1.Row{a.img(a.deploys, a.cache, "redis:7", 1), a.size(a.w2, 5)} {
		if k := bus.RowKey(r.Key()); before[k] != after[k] {
			t.Errorf("unchanged row %s was rewritten: revision %d became %d", k, before[k], after[k])
		}
	}
	// 4 deletes (db twice, cache of the deleted Target, w1), 1 update (web)
	// and the 2 marker objects; the rows-synced markers are not rows.
	got := 0
	for _, n := range writes() {
		got += n
	}
	if got != 7 {
		t.Errorf("the restarted collector wrote %d row messages, want 7:\n%s", got, e.rowMessagesAfter(seq))
	}
	e.waitStatus(a.deploys, busv1.TargetStatus{CollectedCount: 3, MatchedNamespaces: []string{accNS}})
}

func (a *acceptance) dropRowsOfADeletedCRD() {
	remove(a.t, widgetCRD())
	a.e.waitRows("rows after the Widget CRD was deleted", a.img(a.deploys, a.web, "nginx:3", 2),
		a.img(a.deploys, a.cache, "redis:7", 1), a.img(a.deploys, a.marker, "marker:1", 1))
	a.e.waitStatus(a.widgets, busv1.TargetStatus{MatchedNamespaces: []string{accNS}, Outcome: a.notServed})
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
// rowMessagesAfter lists the rows bucket's messages after stream sequence
// seq (subject, operation, size), for a failure message.
func (e *env) rowMessagesAfter(seq uint64) string {
	e.t.Helper()
	s, err := e.nats.JS.Stream(e.ctx, bus.KVStreamName(bus.BucketRows))
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for n := seq + 1; n <= e.rowsSeq(); n++ {
		m, err := s.GetMsg(e.ctx, n)
		if err != nil {
			fmt.Fprintf(&b, "  #%d: %v\n", n, err)
			continue
		}
		fmt.Fprintf(&b, "  #%d %s op=%q %d bytes\n", n, m.Subject, m.Header.Get("KV-Operation"), len(m.Data))
	}
	return b.String()
}

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
