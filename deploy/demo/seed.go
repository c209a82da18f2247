package demo

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/pkg/testenv"
)

// seed creates the sample namespaces, Deployments and Kollect resources.
func seed(ctx context.Context, kube *testenv.Kube) error {
	c := kube.Client
	for _, ns := range []string{"team-a", "team-b"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return fmt.Errorf("create namespace %s: %w", ns, err)
		}
	}
	for _, d := range []struct {
		ns, name, owner string
		images          []string
	}{
		{"team-a", "web", "alice", []string{"nginx:1.27", "envoy:1.30"}},
		{"team-a", "worker", "bob", []string{"worker:3.2"}},
		{"team-b", "api", "", []string{"api:2.1"}},
	} {
		if err := c.Create(ctx, deployment(d.ns, d.name, d.owner, d.images)); err != nil {
			return fmt.Errorf("create deployment %s/%s: %w", d.ns, d.name, err)
		}
	}
	for _, doc := range splitYAML(resources) {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return fmt.Errorf("decode demo resource: %w", err)
		}
		if err := c.Create(ctx, u); err != nil {
			return fmt.Errorf("create %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

func deployment(ns, name, owner string, images []string) *appsv1.Deployment {
	var containers []corev1.Container
	for i, img := range images {
		containers = append(containers, corev1.Container{Name: fmt.Sprintf("c%d", i), Image: img})
	}
	labels := map[string]string{}
	if owner != "" {
		labels["owner"] = owner
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: containers},
			},
		},
	}
}

// setImage changes the first container's image of a Deployment.
func setImage(ctx context.Context, kube *testenv.Kube, ns, name, image string) error {
	var d appsv1.Deployment
	if err := kube.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &d); err != nil {
		return err
	}
	d.Spec.Template.Spec.Containers[0].Image = image
	return kube.Client.Update(ctx, &d)
}

func splitYAML(s string) []string {
	var out []string
	for _, doc := range strings.Split(s, "\n---\n") {
		if strings.TrimSpace(doc) != "" {
			out = append(out, doc)
		}
	}
	return out
}
