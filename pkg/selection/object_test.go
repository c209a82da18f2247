package selection

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/api/v1alpha1"
)

func obj(name string, labels map[string]string, replicas int64) Object {
	return Object{Name: name, Labels: labels, Content: map[string]any{
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"replicas": replicas},
	}}
}

func TestObject(t *testing.T) {
	web := obj("web", map[string]string{"app": "web"}, 3)
	db := obj("db", map[string]string{"app": "db"}, 1)
	job := obj("job", nil, 0)
	nsProd := &Namespace{Name: "prod", Labels: map[string]string{"env": "prod"}}
	tests := []struct {
		name string
		sel  v1alpha1.ObjectSelection
		ns   *Namespace
		want map[string]bool
	}{
		{"no object selection collects every object", v1alpha1.ObjectSelection{}, nsProd,
			map[string]bool{"web": true, "db": true, "job": true}},
		{"a label selector collects matching objects",
			v1alpha1.ObjectSelection{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}, nsProd,
			map[string]bool{"web": true, "db": false, "job": false}},
		{"names collect objects by name", v1alpha1.ObjectSelection{Names: []string{"db"}}, nsProd,
			map[string]bool{"web": false, "db": true, "job": false}},
		{"a label selector and names are OR-combined",
			v1alpha1.ObjectSelection{Names: []string{"job"}, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}, nsProd,
			map[string]bool{"web": false, "db": true, "job": true}},
		{"a resource rule's matchPolicy is a CEL boolean over the object",
			v1alpha1.ObjectSelection{ResourceRules: []v1alpha1.ResourceRule{{MatchPolicy: "object.spec.replicas > 1"}}}, nsProd,
			map[string]bool{"web": true, "db": false, "job": false}},
		{"every field of a rule must match",
			v1alpha1.ObjectSelection{ResourceRules: []v1alpha1.ResourceRule{{MatchLabels: map[string]string{"app": "db"}, MatchPolicy: "object.spec.replicas > 1"}}}, nsProd,
			map[string]bool{"web": false, "db": false, "job": false}},
		{"a rule's namespaceSelector must match the object's namespace",
			v1alpha1.ObjectSelection{ResourceRules: []v1alpha1.ResourceRule{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}}}}, nsProd,
			map[string]bool{"web": false, "db": false, "job": false}},
		{"a rule naming another kind never matches",
			v1alpha1.ObjectSelection{ResourceRules: []v1alpha1.ResourceRule{{GVK: &v1alpha1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}}}}, nsProd,
			map[string]bool{"web": false, "db": false, "job": false}},
		{"a rule naming the profile's kind matches",
			v1alpha1.ObjectSelection{ResourceRules: []v1alpha1.ResourceRule{{GVK: &v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}}}}, nsProd,
			map[string]bool{"web": true, "db": true, "job": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := mustCompile(t, Spec{ObjectSelection: tt.sel})
			for _, o := range []Object{web, db, job} {
				got, err := sel.Object(o, tt.ns)
				if err != nil {
					t.Fatalf("Object(%s): %v", o.Name, err)
				}
				if got != tt.want[o.Name] {
					t.Errorf("Object(%s) = %v, want %v", o.Name, got, tt.want[o.Name])
				}
			}
		})
	}
}

func TestWatchPrecedence(t *testing.T) {
	on, off := map[string]string{v1alpha1.LabelWatch: "enabled"}, map[string]string{v1alpha1.LabelWatch: "disabled"}
	nsOn := &Namespace{Name: "a", Labels: on}
	nsOff := &Namespace{Name: "b", Labels: off}
	nsAnnotated := &Namespace{Name: "c", Annotations: map[string]string{v1alpha1.AnnotationNamespaceWatch: "enabled"}}
	nsPlain := &Namespace{Name: "d"}
	tests := []struct {
		name   string
		mode   v1alpha1.WatchMode
		labels map[string]string
		ns     *Namespace
		want   bool
	}{
		{"an object labelled disabled is never collected, even in an enabled namespace", v1alpha1.WatchModeAll, off, nsOn, false},
		{"an object labelled enabled is collected even in a disabled namespace", v1alpha1.WatchModeAll, on, nsOff, true},
		{"an unlabelled object in a disabled namespace is not collected", v1alpha1.WatchModeAll, nil, nsOff, false},
		{"All collects an unlabelled object in an unlabelled namespace", v1alpha1.WatchModeAll, nil, nsPlain, true},
		{"OptIn skips an unlabelled object in an unlabelled namespace", v1alpha1.WatchModeOptIn, nil, nsPlain, false},
		{"OptIn collects in a namespace labelled enabled", v1alpha1.WatchModeOptIn, nil, nsOn, true},
		{"OptIn collects in a namespace annotated enabled", v1alpha1.WatchModeOptIn, nil, nsAnnotated, true},
		{"OptIn collects an object labelled enabled", v1alpha1.WatchModeOptIn, on, nsPlain, true},
		{"OptIn with a disabled namespace still honours an enabled object", v1alpha1.WatchModeOptIn, on, nsOff, true},
		{"cluster-scoped objects follow only their own label under OptIn", v1alpha1.WatchModeOptIn, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := mustCompile(t, Spec{ObjectSelection: v1alpha1.ObjectSelection{WatchMode: tt.mode}})
			got, err := sel.Object(Object{Name: "x", Labels: tt.labels}, tt.ns)
			if err != nil || got != tt.want {
				t.Errorf("Object = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
