package control_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// crossSink is a git sink of ns whose secretRef names Secret creds of other.
func crossSink(ns, name, other string) *v1alpha1.KollectSnapshotSink {
	s := gitSink(ns, name)
	s.Spec.SecretRef = &v1alpha1.SecretReference{Name: "creds", Namespace: other}
	return s
}

// Without the webhook (this namespace has none), control refuses a sink
// whose secretRef names another namespace at every reconcile: Ready=False
// SecretRefDenied, no config entry for the exporters, no connection test,
// and no binding of an inventory to it.
func TestACrossNamespaceSecretRefIsRefusedAtReconcile(t *testing.T) {
	ns := namespace(t)
	s := crossSink(ns, "git", "kube-system")
	create(t, s)
	eventually(t, "SecretRefDenied", func() error {
		return hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
			v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretRefDenied)
	})
	if c := s.Status.Conditions; !strings.Contains(fmt.Sprint(c), "spec.secretRef.namespace") {
		t.Errorf("conditions %v do not name spec.secretRef.namespace", c)
	}
	if err := noEntry(t, ref(busv1.KindSnapshotSink, ns, "git")); err != nil {
		t.Fatal(err)
	}
	if n := shared.responder.probes(busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: ns, Name: "git"}); n != 0 {
		t.Fatalf("the refused sink was probed %d times", n)
	}
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git"}}}}
	create(t, inv)
	eventually(t, "the binding refused", func() error {
		var cfg busv1.InventoryConfig
		if err := configEntry(t, ref(busv1.KindInventory, ns, "inv"), &cfg); err != nil {
			return err
		}
		if len(cfg.Bindings) != 0 {
			return fmt.Errorf("bindings %v, want none", cfg.Bindings)
		}
		if err := get(t, inv); err != nil {
			return err
		}
		got := map[string]string{}
		for _, e := range inv.Status.SinkExports {
			got[e.Name] = e.Conditions[0].Reason
		}
		if d := cmp.Diff(map[string]string{"snapshot/git": v1alpha1.ReasonSecretRefDenied}, got); d != "" {
			return fmt.Errorf("sinkExports reasons (-want +got):\n%s", d)
		}
		return nil
	})
	t.Run("pointing the secretRef back at the sink's namespace makes it Ready", func(t *testing.T) {
		if err := get(t, s); err != nil {
			t.Fatal(err)
		}
		s.Spec.SecretRef.Namespace = ns
		if err := shared.kube.Client.Update(t.Context(), sealed(t, s)); err != nil {
			t.Fatal(err)
		}
		eventually(t, "Ready", func() error {
			return hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
				v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded)
		})
		var cfg busv1.SinkConfig
		eventually(t, "entry", func() error { return configEntry(t, ref(busv1.KindSnapshotSink, ns, "git"), &cfg) })
	})
}

// An exporter's refusal to build a sink (its credentials are denied) makes
// the sink Ready=False with the exporter's reason.
func TestAnExportersCredentialRefusalMakesTheSinkNotReady(t *testing.T) {
	ns := namespace(t)
	s := gitSink(ns, "denied-ambient")
	create(t, s)
	eventually(t, "CredentialsDenied", func() error {
		return hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
			v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonCredentialsDenied)
	})
}

func TestWebhookRefusesCrossNamespaceSecretRefs(t *testing.T) {
	ns := webhookNamespace(t)
	team := teamClient(t, ns)
	refused(t, "denial", func() error { return team.Create(t.Context(), crossSink(ns, "git", "kube-system")) },
		"spec.secretRef.namespace")
	for _, kind := range []string{"database", "event"} {
		t.Run("a "+kind+" sink is refused too", func(t *testing.T) {
			var err error
			ref := &v1alpha1.SecretReference{Name: "creds", Namespace: "kube-system"}
			switch kind {
			case "database":
				d := &v1alpha1.KollectDatabaseSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"},
					Spec: v1alpha1.KollectDatabaseSinkSpec{Type: "postgres", Endpoint: "postgres://db.example.com:5432/inv",
						Postgres: &v1alpha1.PostgresSink{Table: "rows"}}}
				d.Spec.SecretRef = ref
				err = team.Create(t.Context(), d)
			default:
				e := &v1alpha1.KollectEventSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ev"},
					Spec: v1alpha1.KollectEventSinkSpec{Type: "kafka", Kafka: &v1alpha1.KafkaSink{Brokers: []string{"kafka.example.com:9093"}, Topic: "inv"}}}
				e.Spec.SecretRef = ref
				err = team.Create(t.Context(), e)
			}
			if err == nil || !strings.Contains(err.Error(), "spec.secretRef.namespace") {
				t.Fatalf("create: %v, want a denial naming spec.secretRef.namespace", err)
			}
		})
	}
	t.Run("the sink's own namespace spelled out is admitted", func(t *testing.T) {
		// An administrator: the team may not get the Secret (F6).
		if err := shared.kube.Client.Create(t.Context(), crossSink(ns, "own", ns)); err != nil {
			t.Fatalf("create: %v", err)
		}
	})
}
