package control_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// unstructuredTarget is a KollectTarget whose profileRef is written as
// given (a bare name, a number, ...).
func unstructuredTarget(ns, name string, profileRef any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kollect.dev/v1alpha1", "kind": "KollectTarget",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     map[string]any{"profileRef": profileRef, "includedNamespaces": []any{ns}},
	}}
	return u
}

func TestEstablishedSpellingsInControl(t *testing.T) {
	t.Run("a target naming its profile by a bare name compiles like its canonical twin", func(t *testing.T) {
		ns := namespace(t)
		create(t, profile(ns, "cms", configMaps))
		create(t, unstructuredTarget(ns, "bare", "cms"))
		create(t, targetObj(ns, "object", "cms"))
		var bare, object busv1.TargetConfig
		eventually(t, "both entries", func() error {
			if err := configEntry(t, ref(busv1.KindTarget, ns, "bare"), &bare); err != nil {
				return err
			}
			return configEntry(t, ref(busv1.KindTarget, ns, "object"), &object)
		})
		if bare.ProfileRef != object.ProfileRef || bare.ProfileRef.Name != "cms" {
			t.Errorf("profile refs %v and %v, want both %s/cms", bare.ProfileRef, object.ProfileRef, ns)
		}
		if string(bare.Selection) != string(object.Selection) {
			t.Errorf("selections differ: %s and %s", bare.Selection, object.Selection)
		}
	})
	t.Run("a target whose profileRef is neither a name nor an object is refused", func(t *testing.T) {
		ns := webhookNamespace(t)
		refused(t, "denial", func() error {
			return shared.kube.Client.Create(t.Context(), unstructuredTarget(ns, "odd", int64(5)))
		}, "spec.profileRef: must be a profile name or an object with a name")
	})
	t.Run("the sinkRefs of a Scope bound the sinks of every family", func(t *testing.T) {
		ns := webhookNamespace(t)
		create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"},
			Spec: v1alpha1.KollectScopeSpec{ScopeRules: v1alpha1.ScopeRules{SinkRefs: []string{"git"}}}})
		inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
			Spec: v1alpha1.KollectInventorySpec{ExportMinInterval: dur(time.Hour),
				DatabaseSinkRefs: []v1alpha1.SinkBinding{{Name: "pg"}}}}
		// Until the webhook sees the new Scope an attempt may be admitted:
		// the attempts use another name than the inventory created below.
		refused(t, "denial", func() error {
			denied := inv.DeepCopy()
			denied.Name = "inv-denied"
			return shared.kube.Client.Create(t.Context(), denied)
		}, "spec.databaseSinkRefs[0]: KollectScope team does not allow sink pg")
		inv.Spec.DatabaseSinkRefs = nil
		inv.Spec.SnapshotSinkRefs = []v1alpha1.SinkBinding{{Name: "git"}}
		create(t, inv)
	})
	t.Run("a connection test with ownerSink is owned by its sink", func(t *testing.T) {
		ns := namespace(t)
		s := gitSink(ns, "git")
		create(t, s)
		ct := &v1alpha1.KollectConnectionTest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "probe"},
			Spec: v1alpha1.KollectConnectionTestSpec{OwnerSink: true,
				SinkRef: v1alpha1.ConnectionTestSinkRef{SnapshotSinkRef: "git"}}}
		create(t, ct)
		eventually(t, "owner reference and completion", func() error {
			if err := get(t, ct); err != nil {
				return err
			}
			if len(ct.OwnerReferences) != 1 || ct.OwnerReferences[0].UID != s.UID || ct.OwnerReferences[0].Kind != "KollectSnapshotSink" {
				return fmt.Errorf("owner references %+v, want the sink", ct.OwnerReferences)
			}
			if !ct.Status.Completed {
				return fmt.Errorf("not completed")
			}
			return nil
		})
	})
	t.Run("a connection test without ownerSink has no owner", func(t *testing.T) {
		ns := namespace(t)
		create(t, gitSink(ns, "git"))
		ct := &v1alpha1.KollectConnectionTest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "probe"},
			Spec: v1alpha1.KollectConnectionTestSpec{SinkRef: v1alpha1.ConnectionTestSinkRef{SnapshotSinkRef: "git"}}}
		create(t, ct)
		eventually(t, "completion", func() error {
			if err := get(t, ct); err != nil {
				return err
			}
			if !ct.Status.Completed {
				return fmt.Errorf("not completed")
			}
			return nil
		})
		if len(ct.OwnerReferences) != 0 {
			t.Errorf("owner references %+v, want none", ct.OwnerReferences)
		}
	})
}
