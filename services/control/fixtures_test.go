package control_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/control"
)

var nsSeq atomic.Int64

// namespace creates a namespace of its own for one test.
func namespace(t *testing.T) string {
	t.Helper()
	return labelledNamespace(t, nil)
}

// labelledNamespace creates a namespace of its own with labels.
func labelledNamespace(t *testing.T, labels map[string]string) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%s", nsSeq.Add(1), strings.ToLower(strings.NewReplacer("/", "-", "_", "-", " ", "-").Replace(t.Name())))
	if len(name) > 50 {
		name = strings.TrimRight(name[:50], "-")
	}
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
	grantView(t, name, name, control.DefaultServiceAccount)
	return name
}

// viewRole is a ClusterRole like Kubernetes' view (which envtest leaves
// empty: no controller manager aggregates it): reading workloads and
// ConfigMaps, not Secrets.
var viewRole = sync.OnceValue(func() error {
	err := shared.kube.Client.Create(context.Background(), &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "kollect-test-view"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"", "apps"}, Verbs: []string{"get", "list", "watch"},
			Resources: []string{"configmaps", "pods", "services", "deployments", "replicasets"}}}})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
})

// grantView lets ServiceAccount saNS/sa read workloads and ConfigMaps in
// ns, as a namespace admin grants a Target's ServiceAccount its own
// namespace.
func grantView(t *testing.T, ns, saNS, sa string) *rbacv1.RoleBinding {
	t.Helper()
	if err := viewRole(); err != nil {
		t.Fatalf("create the view ClusterRole: %v", err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "view-" + saNS + "-" + sa},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "kollect-test-view"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: saNS, Name: sa}}}
	create(t, rb)
	return rb
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := shared.kube.Client.Create(t.Context(), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

func profile(ns, name string, gvk v1alpha1.GroupVersionKind) *v1alpha1.KollectProfile {
	return &v1alpha1.KollectProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.KollectProfileSpec{TargetGVK: gvk,
			Attributes: []v1alpha1.Attribute{{Name: "name", Path: "$.metadata.name"}}},
	}
}

var configMaps = v1alpha1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

func targetObj(ns, name, prof string) *v1alpha1.KollectTarget {
	t := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.KollectTargetSpec{ProfileRef: v1alpha1.ProfileReference{Name: prof}}}
	t.Spec.IncludedNamespaces = []string{ns}
	return t
}

func gitSink(ns, name string) *v1alpha1.KollectSnapshotSink {
	return &v1alpha1.KollectSnapshotSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: "https://git.example.com/inv.git"}}
}

// configEntry reads the config entry of ref into v; it returns
// jetstream.ErrKeyNotFound when there is none.
func configEntry(t *testing.T, ref bus.ConfigRef, v any) error {
	t.Helper()
	e, err := shared.kv.Get(t.Context(), bus.ConfigKey(ref))
	if err != nil {
		return err
	}
	return json.Unmarshal(e.Value(), v)
}

// noEntry fails when ref has a config entry.
func noEntry(t *testing.T, ref bus.ConfigRef) error {
	var m map[string]any
	err := configEntry(t, ref, &m)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("config entry %s exists", bus.ConfigKey(ref))
}

// hasCondition checks one condition of a freshly read object.
func hasCondition(t *testing.T, obj client.Object, conds func() []metav1.Condition, typ string, status metav1.ConditionStatus, reason string) error {
	t.Helper()
	if err := get(t, obj); err != nil {
		return err
	}
	c := meta.FindStatusCondition(conds(), typ)
	if c == nil {
		return fmt.Errorf("%s %s has no %s condition (%v)", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), typ, conds())
	}
	if c.Status != status || c.Reason != reason || c.ObservedGeneration != obj.GetGeneration() {
		return fmt.Errorf("%s = %s/%s (gen %d, object gen %d: %s), want %s/%s", typ, c.Status, c.Reason,
			c.ObservedGeneration, obj.GetGeneration(), c.Message, status, reason)
	}
	return nil
}

// publish sends a status report as a service would.
func publish(t *testing.T, r busv1.StatusReport) {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shared.nats.JS.Publish(t.Context(), bus.StatusSubjectFor(r), data); err != nil {
		t.Fatalf("publish report: %v", err)
	}
}

func ref(kind busv1.Kind, ns, name string) bus.ConfigRef {
	return bus.ConfigRef{Kind: kind, Namespace: ns, Name: name}
}

func ref2(name string) client.ObjectKey { return client.ObjectKey{Name: name} }
