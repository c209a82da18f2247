package control_test

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

func TestTargetConfigEntry(t *testing.T) {
	t.Run("a target whose profile exists gets an entry with the profile compiled in", func(t *testing.T) {
		ns := namespace(t)
		create(t, profile(ns, "cms", configMaps))
		tg := targetObj(ns, "cms", "cms")
		create(t, tg)
		var cfg busv1.TargetConfig
		eventually(t, "config entry", func() error { return configEntry(t, ref(busv1.KindTarget, ns, "cms"), &cfg) })
		if cfg.ProfileRef.Name != "cms" || cfg.UID != string(tg.UID) || cfg.Generation != 1 || len(cfg.Profile) == 0 {
			t.Fatalf("entry = %+v", cfg)
		}
		eventually(t, "finalizer", func() error {
			if err := get(t, tg); err != nil {
				return err
			}
			if len(tg.Finalizers) != 1 {
				return fmt.Errorf("finalizers %v", tg.Finalizers)
			}
			return nil
		})
	})
	t.Run("a target naming a missing profile is ProfileNotFound until the profile appears", func(t *testing.T) {
		ns := namespace(t)
		tg := targetObj(ns, "late", "late")
		create(t, tg)
		eventually(t, "ProfileNotFound", func() error {
			return hasCondition(t, tg, func() []metav1.Condition { return tg.Status.Conditions },
				v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonProfileNotFound)
		})
		if err := noEntry(t, ref(busv1.KindTarget, ns, "late")); err != nil {
			t.Fatal(err)
		}
		create(t, profile(ns, "late", configMaps))
		var cfg busv1.TargetConfig
		eventually(t, "entry after the profile appears", func() error { return configEntry(t, ref(busv1.KindTarget, ns, "late"), &cfg) })
	})
	t.Run("a profile reading Secret data without the opt-in makes its target SecretExtractionNotAllowed", func(t *testing.T) {
		ns := namespace(t)
		p := profile(ns, "secrets", v1alpha1.GroupVersionKind{Version: "v1", Kind: "Secret"})
		p.Spec.Attributes = []v1alpha1.Attribute{{Name: "pw", Path: "$.data.password"}}
		create(t, p)
		tg := targetObj(ns, "secrets", "secrets")
		create(t, tg)
		eventually(t, "SecretExtractionNotAllowed", func() error {
			return hasCondition(t, tg, func() []metav1.Condition { return tg.Status.Conditions },
				v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretExtractionNotAllowed)
		})
		if err := noEntry(t, ref(busv1.KindTarget, ns, "secrets")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a suspended target is Suspended and its entry says so", func(t *testing.T) {
		ns := namespace(t)
		create(t, profile(ns, "cms", configMaps))
		tg := targetObj(ns, "cms", "cms")
		create(t, tg)
		var cfg busv1.TargetConfig
		eventually(t, "entry", func() error { return configEntry(t, ref(busv1.KindTarget, ns, "cms"), &cfg) })
		eventually(t, "suspend", func() error {
			if err := get(t, tg); err != nil {
				return err
			}
			tg.Spec.Suspend = true
			return shared.kube.Client.Update(t.Context(), tg)
		})
		eventually(t, "Suspended", func() error {
			return hasCondition(t, tg, func() []metav1.Condition { return tg.Status.Conditions },
				v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSuspended)
		})
		eventually(t, "suspended entry", func() error {
			if err := configEntry(t, ref(busv1.KindTarget, ns, "cms"), &cfg); err != nil {
				return err
			}
			if !cfg.Suspend || cfg.Generation != 2 {
				return fmt.Errorf("entry suspend=%v generation=%d", cfg.Suspend, cfg.Generation)
			}
			return nil
		})
	})
}

func TestTargetDeletionRemovesEntryBeforeFinalizer(t *testing.T) {
	ns := namespace(t)
	create(t, profile(ns, "cms", configMaps))
	tg := targetObj(ns, "cms", "cms")
	create(t, tg)
	var cfg busv1.TargetConfig
	eventually(t, "entry", func() error { return configEntry(t, ref(busv1.KindTarget, ns, "cms"), &cfg) })
	eventually(t, "finalizer", func() error {
		if err := get(t, tg); err != nil || len(tg.Finalizers) == 0 {
			return fmt.Errorf("no finalizer yet (%v)", err)
		}
		return nil
	})
	if err := shared.kube.Client.Delete(t.Context(), tg); err != nil {
		t.Fatal(err)
	}
	eventually(t, "target gone", func() error {
		if err := get(t, tg); err == nil {
			return fmt.Errorf("target still exists with finalizers %v", tg.Finalizers)
		}
		return nil
	})
	if err := noEntry(t, ref(busv1.KindTarget, ns, "cms")); err != nil {
		t.Fatalf("the target is gone but: %v", err)
	}
}
