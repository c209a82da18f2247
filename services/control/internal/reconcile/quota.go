package reconcile

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

// inventoryQuota refuses obj, with a *v1alpha1.ReasonError QuotaExceeded,
// when its namespace is over its quota of inventories and obj is among the
// newest over it (by creation time, then name), or when its bindings,
// added to those of the older inventories that run, pass the namespace's
// quota of bindings. The order is the objects' own (ranked), not the order
// of reconciles, so a new inventory never evicts an older, working one.
func (d *Deps) inventoryQuota(ctx context.Context, obj *v1alpha1.KollectInventory, b bound) error {
	invs := d.Policy.Quotas.InventoryLimit(b.quotas, b.name)
	binds := d.Policy.Quotas.BindingLimit(b.quotas, b.name)
	if invs.Max <= 0 && binds.Max <= 0 {
		return nil
	}
	var list v1alpha1.KollectInventoryList
	if err := d.Client.List(ctx, &list, client.InNamespace(obj.Namespace)); err != nil {
		return fmt.Errorf("list inventories in %s: %w", obj.Namespace, err)
	}
	items := ranked(list.Items, *obj, func(i *v1alpha1.KollectInventory) statusObject { return i })
	var older int64 // bindings of the older inventories that run
	for i := range items {
		n := int64(len(inventoryWants(&items[i])))
		if items[i].UID != obj.UID {
			if invs.Allows(int64(i+1)) && binds.Allows(older+n) {
				older += n
			}
			continue
		}
		if !invs.Allows(int64(i + 1)) {
			return v1alpha1.Reasonf(v1alpha1.ReasonQuotaExceeded,
				"namespace %s has %d KollectInventories, the limit is %s: the %d oldest export, this one (number %d by creation time) does not",
				obj.Namespace, len(items), invs, invs.Max, i+1)
		}
		if !binds.Allows(older + n) {
			return v1alpha1.Reasonf(v1alpha1.ReasonQuotaExceeded,
				"namespace %s would hold %d sink bindings with this inventory's %d (the older inventories hold %d), the limit is %s",
				obj.Namespace, older+n, n, older, binds)
		}
		return nil
	}
	return nil
}

// ranked returns the live items (not being deleted), with own in place of
// its listed copy (the cache may not hold it yet), in the order a
// namespace's quota admits them: oldest first. Creation times have
// one-second resolution: within one second, those already admitted (with a
// Ready condition other than QuotaExceeded) come before the others, then
// names, so an object created in the same second as a working one never
// takes its place.
func ranked[T any](items []T, own T, obj func(*T) statusObject) []T {
	uid := obj(&own).GetUID()
	out := slices.DeleteFunc(slices.Clone(items), func(t T) bool {
		o := obj(&t)
		return o.GetUID() == uid || o.GetDeletionTimestamp() != nil
	})
	out = append(out, own)
	slices.SortStableFunc(out, func(a, b T) int {
		oa, ob := obj(&a), obj(&b)
		return cmp.Or(oa.GetCreationTimestamp().Compare(ob.GetCreationTimestamp().Time),
			cmp.Compare(rankOf(oa), rankOf(ob)), strings.Compare(oa.GetName(), ob.GetName()))
	})
	return out
}

// rankOf is 0 for an object a quota admitted already, 1 for the others.
func rankOf(o statusObject) int {
	if c := meta.FindStatusCondition(o.GetConditions(), v1alpha1.ConditionReady); c != nil && c.Reason != v1alpha1.ReasonQuotaExceeded {
		return 0
	}
	return 1
}

// replaySlot returns why obj must wait ("" when it may run): the
// namespace's replays in flight (neither Succeeded nor Failed, and not
// being deleted) take the slots of its quota of replays, those Running
// first (a quota lowered later never stops one), then the others in the
// order of ranked.
func (d *Deps) replaySlot(ctx context.Context, obj *v1alpha1.KollectReplay) (string, error) {
	if obj.Status.Phase == v1alpha1.ReplayRunning {
		return "", nil
	}
	b, err := d.boundFor(ctx, obj.Namespace)
	if err != nil {
		return "", err
	}
	limit := d.Policy.Quotas.ReplayLimit(b.quotas, b.name)
	if limit.Max <= 0 {
		return "", nil
	}
	var list v1alpha1.KollectReplayList
	if err := d.Client.List(ctx, &list, client.InNamespace(obj.Namespace)); err != nil {
		return "", fmt.Errorf("list replays in %s: %w", obj.Namespace, err)
	}
	items := ranked(list.Items, *obj, func(r *v1alpha1.KollectReplay) statusObject { return r })
	older := true // before obj in the order
	var ahead int64
	for i := range items {
		r := &items[i]
		if r.UID == obj.UID {
			older = false
			continue
		}
		if r.Status.Phase == v1alpha1.ReplayRunning || (older && !finished(r)) {
			ahead++
		}
	}
	if limit.Allows(ahead + 1) {
		return "", nil
	}
	return fmt.Sprintf("waiting for a slot: namespace %s has %d KollectReplays in flight ahead of this one, the limit is %s; it starts when one finishes",
		obj.Namespace, ahead, limit), nil
}
