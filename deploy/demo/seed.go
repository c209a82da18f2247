package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// fromExamples are the docs/examples resources the demo applies, by file and
// "Kind namespace/name"; the rest of those files point at servers the demo
// does not run.
var fromExamples = map[string][]string{
	"00-namespaces.yaml": {"Namespace /kollect-system", "Namespace /platform", "Namespace /team-a"},
	"10-profiles.yaml":   {"KollectProfile team-a/deployment-images"},
	"15-access.yaml":     {"Role team-a/kollect-read", "RoleBinding team-a/kollect-read"},
	"20-targets.yaml":    {"KollectTarget team-a/deployments"},
}

// workloads are the sample Deployments: team-a's are collected (the Target
// selects app.kubernetes.io/name in team-a), team-b's are not.
var workloads = []struct {
	ns, name, owner, version string
	images                   []string
}{
	{"team-a", "web", "alice", "1.4.0", []string{"nginx:1.27", "envoy:1.30"}},
	{"team-a", "worker", "bob", "3.2.1", []string{"worker:3.2"}},
	{"team-a", "cache", "alice", "7.2", []string{"redis:7.2"}},
	{"team-b", "api", "carol", "2.1.0", []string{"api:2.1"}},
}

// seed creates the workloads, the example resources and the demo's sinks.
func seed(ctx context.Context, c client.Client, root string, p *Peers) error {
	for _, file := range []string{"00-namespaces.yaml", "10-profiles.yaml", "15-access.yaml", "20-targets.yaml"} {
		b, err := os.ReadFile(filepath.Join(root, "docs", "examples", file))
		if err != nil {
			return err
		}
		for _, u := range decode(string(b)) {
			key := fmt.Sprintf("%s %s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
			if contains(fromExamples[file], key) {
				if err := create(ctx, c, u); err != nil {
					return fmt.Errorf("%s: %w", file, err)
				}
			}
		}
	}
	if err := create(ctx, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b"}}); err != nil {
		return err
	}
	for _, w := range workloads {
		if err := create(ctx, c, deployment(w.ns, w.name, w.owner, w.version, w.images)); err != nil {
			return err
		}
	}
	for _, u := range decode(sinks(p)) {
		if err := create(ctx, c, u); err != nil {
			return err
		}
	}
	return nil
}

// sinks are the demo's Secret, Git and PostgreSQL sinks and the inventory
// bound to both.
func sinks(p *Peers) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: Secret
metadata: {name: postgres-dsn, namespace: team-a}
stringData: {dsn: %q}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: team-a}
spec:
  type: git
  endpoint: %s
  cluster: demo
  layout: {mode: perResource}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: postgres, namespace: team-a}
spec:
  type: postgres
  secretRef: {name: postgres-dsn}
  cluster: demo
  postgres: {table: inventory}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: workloads, namespace: team-a}
spec:
  snapshotSinkRefs: [git]
  databaseSinkRefs: [postgres]
`, p.DSN, p.RepoURL)
}

func deployment(ns, name, owner, version string, images []string) *appsv1.Deployment {
	var containers []corev1.Container
	for i, img := range images {
		containers = append(containers, corev1.Container{Name: fmt.Sprintf("c%d", i), Image: img})
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Labels:      map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/version": version},
			Annotations: map[string]string{"example.com/owner": owner}},
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
func setImage(ctx context.Context, c client.Client, ns, name, image string) error {
	var d appsv1.Deployment
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &d); err != nil {
		return err
	}
	d.Spec.Template.Spec.Containers[0].Image = image
	return c.Update(ctx, &d)
}

func create(ctx context.Context, c client.Client, o client.Object) error {
	if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

func decode(s string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(s, "\n---") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil || u.Object == nil || u.GetKind() == "" {
			continue
		}
		out = append(out, u)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
