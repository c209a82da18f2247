package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"kollect.dev/kollect/api/v1alpha1"
)

// TestStatusReadsRightToKstatus checks that the status finish writes is
// read by kstatus (Flux, Argo CD, kubectl wait) as what it means.
func TestStatusReadsRightToKstatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		// steps is what the reconcile's steps did to the object.
		steps func(statusObject)
		want  status.Status
		// conds are the conditions present after finish, by type and status.
		conds map[string]metav1.ConditionStatus
	}{
		{"a step that set nothing leaves the object in progress", func(statusObject) {},
			status.InProgressStatus, map[string]metav1.ConditionStatus{"Ready": "Unknown", "Reconciling": "True"}},
		{"waiting for the first report is in progress", func(o statusObject) {
			set(o, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "waiting")
		}, status.InProgressStatus, map[string]metav1.ConditionStatus{"Ready": "Unknown", "Reconciling": "True"}},
		{"a working object is current", func(o statusObject) { ready(o, "collecting") },
			status.CurrentStatus, map[string]metav1.ConditionStatus{"Ready": "True"}},
		{"a working but degraded object is current", func(o statusObject) {
			ready(o, "collecting")
			degraded(o, v1alpha1.ReasonExtractionFailed, "attribute x failed")
		}, status.CurrentStatus, map[string]metav1.ConditionStatus{"Ready": "True", "Degraded": "True"}},
		{"an invalid spec stalls", func(o statusObject) { notReady(o, v1alpha1.ReasonInvalidSpec, "spec.x: bad") },
			status.FailedStatus, map[string]metav1.ConditionStatus{"Ready": "False", "Stalled": "True"}},
		{"a missing Profile stalls", func(o statusObject) { notReady(o, v1alpha1.ReasonProfileNotFound, "not found") },
			status.FailedStatus, map[string]metav1.ConditionStatus{"Ready": "False", "Stalled": "True"}},
		{"a suspended object is not ready and not stalled", func(o statusObject) { notReady(o, v1alpha1.ReasonSuspended, "suspended") },
			status.InProgressStatus, map[string]metav1.ConditionStatus{"Ready": "False"}},
		{"recovering removes Stalled", func(o statusObject) {
			notReady(o, v1alpha1.ReasonInvalidSpec, "spec.x: bad")
			stamp(o)
			o.SetGeneration(o.GetGeneration() + 1)
			ready(o, "fixed")
		}, status.CurrentStatus, map[string]metav1.ConditionStatus{"Ready": "True"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns", Generation: 3}}
			obj.Status.ObservedGeneration = 2 // written for the previous spec
			tc.steps(obj)
			stamp(obj)
			got := map[string]metav1.ConditionStatus{}
			for _, c := range obj.Status.Conditions {
				got[c.Type] = c.Status
				if c.ObservedGeneration != obj.Generation {
					t.Errorf("condition %s has observedGeneration %d, want %d", c.Type, c.ObservedGeneration, obj.Generation)
				}
			}
			if diff := cmp.Diff(tc.conds, got); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				t.Fatal(err)
			}
			res, err := status.Compute(&unstructured.Unstructured{Object: u})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tc.want {
				t.Errorf("kstatus %s (%s), want %s", res.Status, res.Message, tc.want)
			}
		})
	}
}
