package itest

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// deployment is a Deployment the scenarios create: one container per
// image, optional labels and env.
type deployment struct {
	ns, name string
	images   []string
	replicas int32
	labels   map[string]string
	env      []corev1.EnvVar
}

// create creates d and returns the created object (with its uid).
func (d deployment) create(t *testing.T) *appsv1.Deployment {
	t.Helper()
	labels := map[string]string{"app": d.name}
	for k, v := range d.labels {
		labels[k] = v
	}
	var containers []corev1.Container
	for i, img := range d.images {
		c := corev1.Container{Name: "c" + string(rune('0'+i)), Image: img}
		if i == 0 {
			c.Env = d.env
		}
		containers = append(containers, c)
	}
	replicas := d.replicas
	obj := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: d.ns, Name: d.name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": d.name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": d.name}},
				Spec:       corev1.PodSpec{Containers: containers},
			},
		},
	}
	if err := sys.k8s.Create(t.Context(), obj); err != nil {
		t.Fatalf("create Deployment %s/%s: %v", d.ns, d.name, err)
	}
	return obj
}

// update changes the Deployment ns/name with change, retrying on conflicts.
func update(t *testing.T, ns, name string, change func(*appsv1.Deployment)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var d appsv1.Deployment
		if err := sys.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, &d); err != nil {
			return err
		}
		change(&d)
		return sys.k8s.Update(t.Context(), &d)
	})
	if err != nil {
		t.Fatalf("update Deployment %s/%s: %v", ns, name, err)
	}
}

// remove deletes obj.
func remove(t *testing.T, obj client.Object) {
	t.Helper()
	if err := sys.k8s.Delete(t.Context(), obj); err != nil {
		t.Fatalf("delete %s/%s: %v", obj.GetNamespace(), obj.GetName(), err)
	}
}

// deploymentRow is the row of Deployment d collected by Target tns/tname
// with attributes attrs.
func deploymentRow(tns, tname string, d *appsv1.Deployment, attrs map[string]any) busv1.Row {
	return busv1.Row{TargetNamespace: tns, TargetName: tname, Namespace: d.Namespace, Name: d.Name,
		UID: string(d.UID), Group: "apps", Version: "v1", Kind: "Deployment", Attributes: attrs}
}

// rowT and appsv1Deployment shorten scenario tables.
type (
	rowT             = busv1.Row
	appsv1Deployment = appsv1.Deployment
)
