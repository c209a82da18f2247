package itest

import (
	"encoding/json"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

// kollectStatus is the part of every Kollect kind's status the scenarios
// read.
type kollectStatus struct {
	Conditions  []metav1.Condition          `json:"conditions"`
	SinkExports []v1alpha1.SinkExportStatus `json:"sinkExports"`
}

// statusOf reads the status of the Kollect object kind ns/name.
func statusOf(t *testing.T, kind, ns, name string) (kollectStatus, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "kollect.dev", Version: "v1alpha1", Kind: kind})
	if err := sys.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		return kollectStatus{}, err
	}
	var st kollectStatus
	raw, _ := json.Marshal(u.Object["status"])
	if err := json.Unmarshal(raw, &st); err != nil {
		return kollectStatus{}, fmt.Errorf("decode status of %s %s/%s: %w", kind, ns, name, err)
	}
	return st, nil
}

// hasCondition reports an error unless conds hold condition typ with
// status and reason.
func hasCondition(conds []metav1.Condition, typ string, status metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(conds, typ)
	if c == nil {
		return fmt.Errorf("no %s condition in %+v", typ, conds)
	}
	if c.Status != status || c.Reason != reason {
		return fmt.Errorf("%s=%s (%s: %s), want %s (%s)", typ, c.Status, c.Reason, c.Message, status, reason)
	}
	return nil
}

// waitCondition waits until the Kollect object kind ns/name has condition
// typ with status and reason.
func waitCondition(t *testing.T, kind, ns, name, typ string, status metav1.ConditionStatus, reason string) {
	t.Helper()
	eventually(t, waitFor, fmt.Sprintf("%s %s/%s %s=%s (%s)", kind, ns, name, typ, status, reason), func() error {
		st, err := statusOf(t, kind, ns, name)
		if err != nil {
			return err
		}
		return hasCondition(st.Conditions, typ, status, reason)
	})
}

// sinkExport returns the sinkExports entry name ("<family>/<sink>").
func sinkExport(st kollectStatus, name string) (v1alpha1.SinkExportStatus, error) {
	for _, e := range st.SinkExports {
		if e.Name == name {
			return e, nil
		}
	}
	return v1alpha1.SinkExportStatus{}, fmt.Errorf("no sinkExports entry %s", name)
}

// waitSynced waits until the binding's Synced condition has the given
// truth.
func waitSynced(t *testing.T, ns, inv, binding string, synced bool) {
	t.Helper()
	want := metav1.ConditionFalse
	if synced {
		want = metav1.ConditionTrue
	}
	eventually(t, waitFor, fmt.Sprintf("binding %s Synced=%s", binding, want), func() error {
		st, err := statusOf(t, "KollectInventory", ns, inv)
		if err != nil {
			return err
		}
		e, err := sinkExport(st, binding)
		if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(e.Conditions, v1alpha1.ConditionSynced); c == nil || c.Status != want {
			return fmt.Errorf("conditions %+v", e.Conditions)
		}
		return nil
	}, ns+"/"+inv)
}
