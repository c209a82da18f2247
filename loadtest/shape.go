package loadtest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/deploy/demo"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/loadtest/simsource"
)

// The system mode's load is shaped so that shards can split it (issue 34):
// every load namespace holds a Profile and a Target per kind, selecting its
// own namespace, and one inventory (InventoryName) bound to its own
// PostgreSQL and Git sinks; one cluster inventory (ClusterInventoryName)
// rolls up the Widgets of every namespace through one ClusterTarget into
// the control namespace's PostgreSQL sink.
const (
	// MinNamespaces is the fewest load namespaces of a system run.
	MinNamespaces = 10
	// MaxNamespaces is the most load namespaces by default: a hundred
	// teams' inventories of 1k (100k objects) to 10k (1M) objects each,
	// rather than ten thousand inventories of a hundred.
	MaxNamespaces = 100
	// ClusterInventoryName is the KollectClusterInventory; its rows have
	// inventory_namespace "".
	ClusterInventoryName = "load-cluster"
	// ClusterTargetName is the KollectClusterTarget of the Widgets.
	ClusterTargetName = "load-widgets"
	// WidgetKind is the custom resource kind (simsource.WidgetGroup/v1).
	WidgetKind = "Widget"
)

// Shape is the load's Kollect resources, as the report states them.
type Shape struct {
	Namespaces int `json:"namespaces"`
	// Kinds are the kinds collected, each with a Target per namespace.
	Kinds []string `json:"kinds"`
	// Targets count the namespaced Targets; Inventories the namespaced
	// inventories; ClusterTargets and ClusterInventories the cluster ones.
	Targets            int `json:"targets"`
	Inventories        int `json:"inventories"`
	ClusterTargets     int `json:"clusterTargets"`
	ClusterInventories int `json:"clusterInventories"`
	// ClusterKind is the kind the cluster inventory collects.
	ClusterKind string `json:"clusterKind"`
	// Rows is what the sinks hold after the initial sync, every inventory
	// together (objects plus the cluster inventory's).
	Rows int `json:"rows"`
}

// sourceKinds are the kinds of the load objects, in the order object
// indexes cycle through them: the real API server's, or the simulated
// source's.
func sourceKinds(source string) []string {
	if source == SourceSim {
		var out []string
		for _, k := range simsource.Kinds {
			out = append(out, k.Kind)
		}
		return out
	}
	return []string{"ConfigMap", "Deployment", WidgetKind}
}

// newShape is the shape of objs in n namespaces.
func newShape(n int, kinds []string, objs []Object) Shape {
	s := Shape{Namespaces: n, Kinds: kinds, Targets: n * len(kinds), Inventories: n,
		ClusterTargets: 1, ClusterInventories: 1, ClusterKind: WidgetKind}
	for _, c := range expectedRows(objs) {
		s.Rows += c
	}
	return s
}

// clusterInventory is the cluster inventory's identity in the sinks.
var clusterInventory = busv1.NamespacedName{Name: ClusterInventoryName}

// inventoryOf is the namespaced inventory holding o's row.
func inventoryOf(o Object) busv1.NamespacedName {
	return busv1.NamespacedName{Namespace: o.Namespace, Name: InventoryName}
}

// expectedRows counts the rows every inventory holds when the sinks hold
// objs.
func expectedRows(objs []Object) map[busv1.NamespacedName]int {
	out := map[busv1.NamespacedName]int{}
	for _, o := range objs {
		out[inventoryOf(o)]++
		if o.Kind == WidgetKind {
			out[clusterInventory]++
		}
	}
	return out
}

// profiles maps each kind to its Profile's attributes.
var profiles = map[string]struct{ gvk, attrs string }{
	"ConfigMap": {"{version: v1, kind: ConfigMap}", `
  - {name: app, path: "$.metadata.labels['app.kubernetes.io/name']", type: string, optional: true}
  - {name: team, path: $.metadata.labels.team, type: string, optional: true}
  - {name: endpoint, path: $.data.endpoint, type: string, optional: true}`},
	"Deployment": {"{group: apps, version: v1, kind: Deployment}", `
  - {name: images, path: "$.spec.template.spec.containers[*].image", type: list}
  - {name: replicas, path: $.spec.replicas, type: int}
  - {name: team, path: $.metadata.labels.team, type: string, optional: true}`},
	"Pod": {"{version: v1, kind: Pod}", `
  - {name: node, path: $.spec.nodeName, type: string, optional: true}
  - {name: ip, path: $.status.podIP, type: string, optional: true}`},
	WidgetKind: {"{group: " + simsource.WidgetGroup + ", version: v1, kind: Widget}", `
  - {name: color, path: $.spec.color, type: string, optional: true}
  - {name: size, path: $.spec.size, type: int, optional: true}`},
}

// profile is kind's Profile in ns, named as its Target (targetOf).
func profile(ns, kind string) string {
	p := profiles[kind]
	return fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: %s, namespace: %s}
spec:
  targetGVK: %s
  attributes:
  - {name: seq, path: "$.metadata.annotations['%s']", type: string}
  - {name: owner, path: "$.metadata.annotations['example.com/owner']", type: string, optional: true}%s`,
		targetOf(kind), ns, p.gvk, SeqAnnotation, p.attrs)
}

// namespaceResources are load namespace ns's Profiles, Targets (each
// selecting the tier's objects of ns alone), sinks and inventory, and the
// RoleBinding letting the Targets' ServiceAccount list there.
func namespaceResources(ns, tier string, kinds []string, dsn, repoURL string) string {
	docs := []string{fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: kollect-loadtest-read, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: %[2]s}
subjects:
- {kind: ServiceAccount, name: kollect, namespace: %[1]s}`, ns, shapeRole)}
	for _, k := range kinds {
		docs = append(docs, profile(ns, k), fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  profileRef: {name: %[1]s}
  includedNamespaces: [%[2]s]
  labelSelector: {matchLabels: {%[3]s: %[4]q}}`, targetOf(k), ns, TierLabel, tier))
	}
	docs = append(docs, sinkResourcesIn(ns, dsn, repoURL, ns), fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: %s, namespace: %s}
spec:
  snapshotSinkRefs: [git]
  databaseSinkRefs: [postgres]`, InventoryName, ns))
	return strings.Join(docs, "\n---\n")
}

// shapeRole is the ClusterRole the load namespaces' RoleBindings grant.
const shapeRole = "kollect-loadtest-read-shape"

// clusterResources are the ClusterRole the namespaces bind, the control
// namespace's sinks, the Widgets' Profile there, the ClusterTarget of every
// load namespace's Widgets and the cluster inventory bound to PostgreSQL.
func clusterResources(tier, dsn, repoURL string) string {
	return strings.Join([]string{fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: %s}
rules:
- {apiGroups: [""], resources: [configmaps, pods], verbs: [get, list, watch]}
- {apiGroups: [apps], resources: [deployments], verbs: [get, list, watch]}
- {apiGroups: [%s], resources: [widgets], verbs: [get, list, watch]}`, shapeRole, simsource.WidgetGroup),
		sinkResourcesIn(ControlNamespace, dsn, repoURL, ""),
		profile(ControlNamespace, WidgetKind),
		fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectClusterTarget
metadata: {name: %[1]s}
spec:
  profileRef: {name: %[2]s, namespace: %[3]s}
  namespaceSelector: {matchExpressions: [{key: %[4]s, operator: In, values: [%[5]q]}]}
  excludedNamespaces: [%[3]s]
  labelSelector: {matchLabels: {%[4]s: %[5]q}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectClusterInventory
metadata: {name: %[6]s}
spec:
  targetRefs: [%[1]s]
  sinkNamespace: %[3]s
  databaseSinkRefs: [postgres]`, ClusterTargetName, targetOf(WidgetKind), ControlNamespace, TierLabel, tier, ClusterInventoryName),
	}, "\n---\n")
}

// shapeResources are every Kollect resource of a system run.
func shapeResources(n int, tier string, kinds []string, dsn, repoURL string) string {
	docs := []string{clusterResources(tier, dsn, repoURL)}
	for i := range n {
		docs = append(docs, namespaceResources(namespaceName(i), tier, kinds, dsn, repoURL))
	}
	return strings.Join(docs, "\n---\n")
}

// countKinds records the objects per kind and, for a system run, the
// shape.
func (r *run) countKinds() {
	s := &r.res.Settings
	s.ObjectsByKind = map[string]int{}
	for _, o := range r.objs {
		s.ObjectsByKind[o.Kind]++
	}
	s.ConfigMaps, s.Deployments = s.ObjectsByKind["ConfigMap"], s.ObjectsByKind["Deployment"]
	if r.c.CollectOnly {
		return
	}
	s.Shape = newShape(r.c.Namespaces, r.c.Kinds, r.objs)
	s.Inventories = s.Shape.Inventories + s.Shape.ClusterInventories
}

// installWidgets installs the Widget CRD in the real API server and waits
// until the Widgets are served.
func (r *run) installWidgets(ctx context.Context, m kubeMutator) error {
	if err := apply(ctx, r.p.Kube.Client, widgetCRD()); err != nil {
		return err
	}
	return demo.Poll(ctx, nil, demo.PollOptions{What: "Widgets served", Interval: 100 * time.Millisecond, Timeout: time.Minute},
		func() (bool, error) {
			_, err := m.dyn.Resource(widgetGVR).Namespace(ControlNamespace).List(ctx, metav1.ListOptions{Limit: 1})
			return err == nil, nil
		})
}

// pgMaxConnections is the PostgreSQL server's max_connections in a system
// run: every namespace's database sink holds its own pool (up to 4
// connections in the database exporter), so 100 namespaces' sinks would
// exceed the server's default of 100 and exports would fail with "too many
// clients".
const pgMaxConnections = 1000

// raisePGConnections sets max_connections for the namespaces' sinks and
// restarts PostgreSQL (the setting needs a restart), keeping its data.
func (r *run) raisePGConnections(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, r.p.DSN)
	if err != nil {
		return fmt.Errorf("connect postgres: %w", err)
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("ALTER SYSTEM SET max_connections = %d", pgMaxConnections))
	_ = conn.Close(ctx)
	if err != nil {
		return fmt.Errorf("set max_connections: %w", err)
	}
	if err := r.p.PG.StopServer(); err != nil {
		return err
	}
	return r.p.PG.StartServer()
}
