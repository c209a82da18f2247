package collect

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/inventory"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/tree"
	"kollect.dev/kollect/services/cli/internal/manifests"
)

// Record is one line of `kollect collect` output: the envelope of one
// inventory (or Target) collected from one context, and the path a local
// snapshot sink would write it to.
type Record struct {
	Context   string         `json:"context"`
	Inventory string         `json:"inventory"`
	Path      string         `json:"path"`
	Envelope  busv1.Envelope `json:"envelope"`
}

// buildRecords groups rows into the folder's inventories, or into one record
// per Target when the folder has none.
func buildRecords(set *manifests.Set, p *plan, rows []busv1.Row, namespaces map[string]*selection.Namespace,
	kctx, cluster, ext string, now time.Time) ([]Record, error) {
	var invs []*busv1.InventoryConfig
	for _, inv := range set.Inventories {
		if !inv.Spec.Suspend {
			invs = append(invs, &busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name, Generation: inv.Generation})
		}
	}
	targetMeta := make([]metav1.ObjectMeta, 0, len(set.ClusterTargets))
	for _, t := range set.ClusterTargets {
		targetMeta = append(targetMeta, t.ObjectMeta)
	}
	for _, inv := range set.ClusterInventories {
		if inv.Spec.Suspend {
			continue
		}
		r, err := inventory.ResolveCluster(inv.Spec, targetMeta, namespaceList(namespaces))
		if err != nil {
			return nil, err
		}
		invs = append(invs, &busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: inv.Name, Generation: inv.Generation,
			TargetRefs: r.TargetRefs, Namespaces: r.Namespaces, Dedupe: r.Dedupe})
	}
	if len(invs) == 0 {
		return perTarget(p, rows, kctx, cluster, ext, now)
	}
	out := make([]Record, 0, len(invs))
	for _, inv := range invs {
		var mine []busv1.Row
		for i := range rows {
			if snapshot.Member(inv, &rows[i]) {
				mine = append(mine, rows[i])
			}
		}
		snapshot.Sort(mine)
		mine = snapshot.Dedupe(inv.Dedupe, mine)
		rec, err := record(busv1.NamespacedName{Namespace: inv.Namespace, Name: inv.Name}, inv.Generation, mine, kctx, cluster, ext, now)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

func perTarget(p *plan, rows []busv1.Row, kctx, cluster, ext string, now time.Time) ([]Record, error) {
	byTarget := map[busv1.NamespacedName][]busv1.Row{}
	for _, r := range rows {
		k := busv1.NamespacedName{Namespace: r.TargetNamespace, Name: r.TargetName}
		byTarget[k] = append(byTarget[k], r)
	}
	out := make([]Record, 0, len(p.targets))
	for _, t := range p.targets {
		k := busv1.NamespacedName{Namespace: t.Config.Namespace, Name: t.Config.Name}
		rec, err := record(k, t.Config.Generation, byTarget[k], kctx, cluster, ext, now)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

func record(inv busv1.NamespacedName, generation int64, rows []busv1.Row, kctx, cluster, ext string, now time.Time) (Record, error) {
	env, err := snapshot.Envelope(inv, 0, generation, rows)
	if err != nil {
		return Record{}, err
	}
	return Record{Context: kctx, Inventory: inv.String(), Path: DocumentPath(cluster, inv, ext),
		Envelope: env.Stamp(cluster, now)}, nil
}

// DocumentPath is where --output puts the document of inventory inv
// collected from context cluster: <context>/ followed by the default
// document path of a Git sink, inventory/{namespace}/{name}{extension}
// (_cluster for cluster inventories).
func DocumentPath(cluster string, inv busv1.NamespacedName, ext string) string {
	p, err := tree.Spec{Format: strings.TrimPrefix(ext, ".")}.DocumentPath(busv1.Envelope{Cluster: cluster, Inventory: inv})
	if err != nil { // only an unknown extension, which newWriter refuses
		p = "inventory/" + inv.String() + ext
	}
	return tree.Sanitize(cluster) + "/" + p
}
