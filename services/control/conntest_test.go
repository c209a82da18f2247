package control_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

func TestSinkConnectionTests(t *testing.T) {
	tests := []struct {
		name, sink string
		status     metav1.ConditionStatus
		reason     string
	}{
		{"a reachable sink is probed on create and ConnectionVerified", "git", metav1.ConditionTrue, v1alpha1.ReasonConnectionOK},
		{"a failing probe sets ConnectionTestFailed", "bad-git", metav1.ConditionFalse, v1alpha1.ReasonConnectionTestFailed},
		{"a probe that reached the exporter before the sink's config is sent again", "pending-git", metav1.ConditionTrue, v1alpha1.ReasonConnectionOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := namespace(t)
			s := gitSink(ns, tc.sink)
			create(t, s)
			eventually(t, tc.reason, func() error {
				return hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
					v1alpha1.ConditionConnectionVerified, tc.status, tc.reason)
			})
		})
	}
	t.Run("the test-connection annotation probes once more and is removed", func(t *testing.T) {
		ns := namespace(t)
		s := gitSink(ns, "git")
		create(t, s)
		sink := busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: ns, Name: "git"}
		eventually(t, "first probe", func() error {
			if err := hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
				v1alpha1.ConditionConnectionVerified, metav1.ConditionTrue, v1alpha1.ReasonConnectionOK); err != nil {
				return err
			}
			if n := shared.responder.probes(sink); n != 1 {
				return fmt.Errorf("%d probes, want 1", n)
			}
			return nil
		})
		patch := client.MergeFrom(s.DeepCopy())
		s.Annotations = map[string]string{v1alpha1.AnnotationTestConnection: "true"}
		if err := shared.kube.Client.Patch(t.Context(), s, patch); err != nil {
			t.Fatal(err)
		}
		eventually(t, "annotation removed after a second probe", func() error {
			if err := get(t, s); err != nil {
				return err
			}
			if _, ok := s.Annotations[v1alpha1.AnnotationTestConnection]; ok {
				return fmt.Errorf("annotation still set")
			}
			if n := shared.responder.probes(sink); n != 2 {
				return fmt.Errorf("%d probes, want 2", n)
			}
			return nil
		})
	})
}

func TestSinkReprobedOnSpecChange(t *testing.T) {
	ns := namespace(t)
	s := gitSink(ns, "git")
	create(t, s)
	sink := busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: ns, Name: "git"}
	conds := func() []metav1.Condition { return s.Status.Conditions }
	eventually(t, "first probe", func() error {
		return hasCondition(t, s, conds, v1alpha1.ConditionConnectionVerified, metav1.ConditionTrue, v1alpha1.ReasonConnectionOK)
	})
	eventually(t, "spec change", func() error {
		if err := get(t, s); err != nil {
			return err
		}
		s.Spec.Cluster = "eu-1"
		return shared.kube.Client.Update(t.Context(), s)
	})
	eventually(t, "probed again for generation 2", func() error {
		if err := hasCondition(t, s, conds, v1alpha1.ConditionConnectionVerified, metav1.ConditionTrue, v1alpha1.ReasonConnectionOK); err != nil {
			return err
		}
		if n := shared.responder.probes(sink); n != 2 {
			return fmt.Errorf("%d probes, want 2", n)
		}
		return nil
	})
	t.Run("an exporter's connection report for the current generation is folded", func(t *testing.T) {
		publish(t, busv1.StatusReport{Service: busv1.ServiceSnapshotExporter, Kind: busv1.KindSnapshotSink, Namespace: ns, Name: "git",
			Generation: 2, ObservedAt: time.Now(), Connection: &busv1.ConnectionStatus{OK: false,
				Outcome: busv1.Outcome{Reason: v1alpha1.ReasonSecretResolveFailed, Message: "secret git-creds has no key token"}}})
		eventually(t, "SecretResolveFailed", func() error {
			if err := hasCondition(t, s, conds, v1alpha1.ConditionConnectionVerified, metav1.ConditionFalse, v1alpha1.ReasonSecretResolveFailed); err != nil {
				return err
			}
			return hasCondition(t, s, conds, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretResolveFailed)
		})
		// A later reconcile (a metadata change) keeps the exporter's verdict
		// rather than probing again or flipping Ready back.
		eventually(t, "label", func() error {
			if err := get(t, s); err != nil {
				return err
			}
			s.Labels = map[string]string{"touched": "yes"}
			return shared.kube.Client.Update(t.Context(), s)
		})
		publish(t, busv1.StatusReport{Service: busv1.ServiceSnapshotExporter, Kind: busv1.KindSnapshotSink, Namespace: ns, Name: "git",
			Generation: 1, ObservedAt: time.Now(), Connection: &busv1.ConnectionStatus{OK: true}})
		eventually(t, "still SecretResolveFailed after a stale report", func() error {
			if n := shared.responder.probes(sink); n != 2 {
				return fmt.Errorf("%d probes, want 2", n)
			}
			return hasCondition(t, s, conds, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretResolveFailed)
		})
	})
}

func TestConnectionTestLifecycle(t *testing.T) {
	ns := namespace(t)
	create(t, gitSink(ns, "git"))
	ttl := int32(2)
	ct := &v1alpha1.KollectConnectionTest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "probe"},
		Spec: v1alpha1.KollectConnectionTestSpec{SinkRef: v1alpha1.ConnectionTestSinkRef{SnapshotSinkRef: "git"}, TTLSecondsAfterFinished: &ttl}}
	create(t, ct)
	eventually(t, "completed", func() error {
		if err := hasCondition(t, ct, func() []metav1.Condition { return ct.Status.Conditions },
			v1alpha1.ConditionConnectionVerified, metav1.ConditionTrue, v1alpha1.ReasonConnectionOK); err != nil {
			return err
		}
		if !ct.Status.Completed || ct.Status.CompletedAt == nil || ct.Status.LatencyMs != 7 {
			return fmt.Errorf("status = %+v", ct.Status)
		}
		return nil
	})
	eventually(t, "deleted after its TTL", func() error {
		if err := get(t, ct); err == nil {
			return fmt.Errorf("still exists")
		}
		return nil
	})
	t.Run("a test naming no sink completes as SinkNotFound", func(t *testing.T) {
		ct := &v1alpha1.KollectConnectionTest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nosink"},
			Spec: v1alpha1.KollectConnectionTestSpec{SinkRef: v1alpha1.ConnectionTestSinkRef{EventSinkRef: "nope"}}}
		create(t, ct)
		eventually(t, "SinkNotFound", func() error {
			if err := hasCondition(t, ct, func() []metav1.Condition { return ct.Status.Conditions },
				v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSinkNotFound); err != nil {
				return err
			}
			if !ct.Status.Completed {
				return fmt.Errorf("not completed")
			}
			return nil
		})
	})
}
