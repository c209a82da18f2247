package simsource

import (
	"cmp"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Label and annotation of every object, the same as the load test's real
// objects: Targets select TierLabel, Profiles extract SeqAnnotation.
const (
	TierLabel     = "loadtest.kollect.dev/tier"
	SeqAnnotation = "loadtest.kollect.dev/seq"
)

// WidgetGroup is the API group of the custom resource kind Widget.
const WidgetGroup = "loadtest.kollect.dev"

// Kind is one kind the source serves.
type Kind struct {
	GVR  schema.GroupVersionResource
	Kind string
	// Builtin kinds are also served as protobuf.
	Builtin bool
	// short is the name prefix of its objects.
	short string
}

// GVK is the kind's group, version and kind.
func (k Kind) GVK() schema.GroupVersionKind { return k.GVR.GroupVersion().WithKind(k.Kind) }

// Kinds are the kinds of the objects, in the order their indexes cycle
// through: object i is of Kinds[i%4].
var Kinds = []Kind{
	{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Builtin: true, short: "cm"},
	{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Kind: "Deployment", Builtin: true, short: "app"},
	{GVR: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Kind: "Pod", Builtin: true, short: "pod"},
	{GVR: schema.GroupVersionResource{Group: WidgetGroup, Version: "v1", Resource: "widgets"}, Kind: "Widget", short: "widget"},
}

// KindOf returns the kind of object i.
func KindOf(i int) Kind { return Kinds[i%len(Kinds)] }

// NamespaceName returns the i-th namespace, as the load test names them.
func NamespaceName(i int) string { return fmt.Sprintf("load-%04d", i) }

// Name returns the name of object i.
func Name(i int) string { return fmt.Sprintf("%s-%07d", KindOf(i).short, i) }

// UID returns the uid of object i: stable across restarts of the source.
func UID(i int) types.UID { return types.UID(fmt.Sprintf("5170ce00-0000-4000-8000-%012d", i)) }

// indexOf parses an object name back to its index and checks its kind.
func indexOf(k Kind, name string) (int, bool) {
	p := k.short + "-"
	if len(name) <= len(p) || name[:len(p)] != p {
		return 0, false
	}
	i, err := strconv.Atoi(name[len(p):])
	return i, err == nil && i >= 0 && KindOf(i) == k
}

// objState is what a change made of an object.
type objState struct {
	seq     string // "" is the initial "0"
	rv      uint64
	deleted bool
}

func objectLabels(i int, tier string) map[string]string {
	return map[string]string{
		TierLabel:                   tier,
		"app.kubernetes.io/name":    fmt.Sprintf("svc-%04d", i/4),
		"app.kubernetes.io/part-of": fmt.Sprintf("product-%02d", i%17),
		"team":                      fmt.Sprintf("team-%02d", i%23),
	}
}

func (s *Source) meta(i int, st objState) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: Name(i), Namespace: s.namespaceOf(i), UID: UID(i),
		ResourceVersion:   strconv.FormatUint(st.rv, 10),
		CreationTimestamp: metav1.NewTime(s.created),
		Labels:            objectLabels(i, s.opts.Tier),
		Annotations: map[string]string{SeqAnnotation: cmp.Or(st.seq, "0"),
			"example.com/owner": fmt.Sprintf("owner-%03d@example.com", i%211)},
	}
}

// object builds object i in state st: typed for the built-in kinds,
// unstructured for Widgets.
func (s *Source) object(i int, st objState) runtime.Object {
	m := s.meta(i, st)
	switch KindOf(i).Kind {
	case "ConfigMap":
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: m,
			Data: map[string]string{
				"application.properties": fmt.Sprintf("key%d=value-%07d\nlog.level=info\n", i%7, i),
				"endpoint":               fmt.Sprintf("https://svc-%04d.internal.example.com:8443/api/v1", i/4),
			}}
	case "Deployment":
		sel := map[string]string{"app": m.Name}
		return &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: m,
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(1 + i%3)), Selector: &metav1.LabelSelector{MatchLabels: sel},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
					Spec: corev1.PodSpec{Containers: []corev1.Container{container(i)}}}}}
	case "Pod":
		return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: m,
			Spec:   corev1.PodSpec{Containers: []corev1.Container{container(i)}, NodeName: fmt.Sprintf("node-%03d", i%97)},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)}}
	default:
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": WidgetGroup + "/v1", "kind": "Widget",
			"spec": map[string]any{"size": int64(i % 10), "color": []string{"red", "green", "blue"}[i%3],
				"owner": fmt.Sprintf("team-%02d", i%23)},
		}}
		u.SetName(m.Name)
		u.SetNamespace(m.Namespace)
		u.SetUID(m.UID)
		u.SetResourceVersion(m.ResourceVersion)
		u.SetCreationTimestamp(m.CreationTimestamp)
		u.SetLabels(m.Labels)
		u.SetAnnotations(m.Annotations)
		return u
	}
}

func container(i int) corev1.Container {
	return corev1.Container{Name: "app", Image: fmt.Sprintf("registry.example.com/team-%02d/svc-%04d:1.%d.%d", i%23, i/4, i%9, i%13),
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
		Env:   []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "REGION", Value: "eu-west-1"}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz",
			Port: intstr.FromInt32(8080)}}, PeriodSeconds: 10},
	}
}

// emptyObject is an object of k holding only a resourceVersion: a
// bookmark's.
func emptyObject(k Kind, rv uint64) runtime.Object {
	m := metav1.ObjectMeta{ResourceVersion: strconv.FormatUint(rv, 10)}
	switch k.Kind {
	case "ConfigMap":
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: m}
	case "Deployment":
		return &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: m}
	case "Pod":
		return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: m}
	case "Namespace":
		return &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: m}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": k.GVR.GroupVersion().String(), "kind": k.Kind}}
	u.SetResourceVersion(m.ResourceVersion)
	return u
}

// typedList wraps items in k's list type (built-in kinds only).
func typedList(k Kind, items []runtime.Object, lm metav1.ListMeta) runtime.Object {
	switch k.Kind {
	case "ConfigMap":
		l := &corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}, ListMeta: lm}
		for _, o := range items {
			l.Items = append(l.Items, *o.(*corev1.ConfigMap))
		}
		return l
	case "Deployment":
		l := &appsv1.DeploymentList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DeploymentList"}, ListMeta: lm}
		for _, o := range items {
			l.Items = append(l.Items, *o.(*appsv1.Deployment))
		}
		return l
	case "Namespace":
		l := &corev1.NamespaceList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NamespaceList"}, ListMeta: lm}
		for _, o := range items {
			l.Items = append(l.Items, *o.(*corev1.Namespace))
		}
		return l
	default:
		l := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: lm}
		for _, o := range items {
			l.Items = append(l.Items, *o.(*corev1.Pod))
		}
		return l
	}
}
