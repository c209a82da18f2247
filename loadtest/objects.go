package loadtest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"kollect.dev/kollect/loadtest/simsource"
)

// Label and annotation the load objects carry: the Targets select TierLabel,
// the Profiles extract SeqAnnotation, which a change rewrites.
const (
	TierLabel     = simsource.TierLabel
	SeqAnnotation = simsource.SeqAnnotation
)

// Object is one created load object.
type Object struct {
	Kind      string // "ConfigMap", "Deployment", "Pod" or "Widget"
	Namespace string
	Name      string
	UID       string
	// Index is the object's index in the simulated source.
	Index int
}

// namespaceName returns the i-th load namespace.
func namespaceName(i int) string { return fmt.Sprintf("load-%04d", i) }

// objectName returns the name of object i of kind.
func objectName(kind string, i int) string {
	switch kind {
	case "ConfigMap":
		return fmt.Sprintf("cm-%06d", i)
	case WidgetKind:
		return fmt.Sprintf("widget-%06d", i)
	}
	return fmt.Sprintf("app-%06d", i)
}

// defaultKinds are the kinds objects cycle through when Config.Kinds is
// empty.
var defaultKinds = []string{"ConfigMap", "Deployment"}

// kindOf returns the kind of object i: objects cycle through kinds
// (default even ConfigMaps, odd Deployments).
func kindOf(i int, kinds []string) string {
	if len(kinds) == 0 {
		kinds = defaultKinds
	}
	return kinds[i%len(kinds)]
}

// namespaceOf returns the namespace of object i: consecutive runs of one
// object per kind share a namespace, as in the simulated source, so that
// every namespace holds every kind.
func namespaceOf(i int, c Config) string {
	return namespaceName((i / max(1, len(c.Kinds))) % c.Namespaces)
}

// labels of object i; every fourth team differs so selections stay realistic.
func labels(i int, tier string) map[string]string {
	return map[string]string{
		TierLabel:                   tier,
		"app.kubernetes.io/name":    fmt.Sprintf("svc-%04d", i/4),
		"app.kubernetes.io/part-of": fmt.Sprintf("product-%02d", i%17),
		"team":                      fmt.Sprintf("team-%02d", i%23),
	}
}

func annotations(i int) map[string]string {
	return map[string]string{SeqAnnotation: "0", "example.com/owner": fmt.Sprintf("owner-%03d@example.com", i%211),
		"example.com/runbook": fmt.Sprintf("https://runbooks.example.com/services/svc-%04d", i/4)}
}

// configMap returns object i as a ConfigMap of about 1-3 KB.
func configMap(ns string, i int, tier string) *corev1.ConfigMap {
	body := strings.Repeat(fmt.Sprintf("key%d=value-%06d\n", i%7, i), 20+(i%5)*20) // 0.4-2 KB
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: objectName("ConfigMap", i), Labels: labels(i, tier),
			Annotations: annotations(i)},
		Data: map[string]string{
			"application.properties": body,
			"LOG_LEVEL":              "info",
			"FEATURE_FLAGS":          "alpha,beta,gamma",
			"endpoint":               fmt.Sprintf("https://svc-%04d.internal.example.com:8443/api/v1", i/4),
		},
	}
}

// deployment returns object i as a Deployment of about 1.5-3 KB.
func deployment(ns string, i int, tier string) *appsv1.Deployment {
	name := objectName("Deployment", i)
	sel := map[string]string{"app": name}
	c := func(n, img string, port int32) corev1.Container {
		return corev1.Container{Name: n, Image: img,
			Ports: []corev1.ContainerPort{{Name: n, ContainerPort: port}},
			Env: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "SERVICE_NAME", Value: name},
				{Name: "REGION", Value: "eu-west-1"}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstrPort(port)}},
				PeriodSeconds: 10},
		}
	}
	containers := []corev1.Container{c("app", fmt.Sprintf("registry.example.com/team-%02d/svc-%04d:1.%d.%d", i%23, i/4, i%9, i%13), 8080)}
	if i%3 == 0 {
		containers = append(containers, c("envoy", "envoyproxy/envoy:v1.30.1", 9901))
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels(i, tier), Annotations: annotations(i)},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(1 + i%3)),
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec:       corev1.PodSpec{Containers: containers, ServiceAccountName: "default"},
			},
		},
	}
}

// widget returns object i as a Widget, the custom resource kind.
func widget(ns string, i int, tier string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": simsource.WidgetGroup + "/v1", "kind": WidgetKind,
		"spec": map[string]any{"size": int64(i % 10), "color": []any{"red", "green", "blue"}[i%3],
			"owner": fmt.Sprintf("team-%02d", i%23)},
	}}
	u.SetNamespace(ns)
	u.SetName(objectName(WidgetKind, i))
	u.SetLabels(labels(i, tier))
	u.SetAnnotations(annotations(i))
	return u
}

// createNamespaces creates the load namespaces and ControlNamespace.
func createNamespaces(ctx context.Context, cs kubernetes.Interface, n int, tier string) error {
	names := []string{ControlNamespace}
	for i := range n {
		names = append(names, namespaceName(i))
	}
	for _, name := range names {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{TierLabel: tier}}}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create namespace %s: %w", ns.Name, err)
		}
	}
	return nil
}

// createObjects creates n objects round-robin over namespaces with workers
// concurrent writers and returns them by index.
func createObjects(ctx context.Context, cs kubeMutator, c Config) ([]Object, error) {
	objs := make([]Object, c.Objects)
	jobs := make(chan int)
	errs := make(chan error, c.Workers)
	var wg sync.WaitGroup
	for range c.Workers {
		wg.Go(func() {
			for i := range jobs {
				o, err := createObject(ctx, cs, i, c)
				if err != nil {
					errs <- err
					return
				}
				objs[i] = o
			}
		})
	}
	var err error
feed:
	for i := range c.Objects {
		select {
		case jobs <- i:
		case err = <-errs:
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	return objs, err
}

func createObject(ctx context.Context, m kubeMutator, i int, c Config) (Object, error) {
	ns := namespaceOf(i, c)
	kind := kindOf(i, c.Kinds)
	o := Object{Kind: kind, Namespace: ns, Name: objectName(kind, i), Index: i}
	var meta metav1.Object
	var err error
	switch kind {
	case "ConfigMap":
		meta, err = m.cs.CoreV1().ConfigMaps(ns).Create(ctx, configMap(ns, i, c.Tier), metav1.CreateOptions{})
	case WidgetKind:
		meta, err = m.dyn.Resource(widgetGVR).Namespace(ns).Create(ctx, widget(ns, i, c.Tier), metav1.CreateOptions{})
	default:
		meta, err = m.cs.AppsV1().Deployments(ns).Create(ctx, deployment(ns, i, c.Tier), metav1.CreateOptions{})
	}
	if err != nil {
		return o, fmt.Errorf("create %s %s/%s: %w", o.Kind, ns, o.Name, err)
	}
	o.UID = string(meta.GetUID())
	return o, nil
}
