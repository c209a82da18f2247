package collect

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/target"
)

// servedList is a page of Deployments as the API server lists them: no
// kind on the items, managedFields, the last-applied annotation, status.
const servedList = `{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"9"},"items":[
{"metadata":{"name":"web","namespace":"shop","uid":"u1","resourceVersion":"5","labels":{"owner":"team-a","app":"web"},
 "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"big\":true}","note":"x"},
 "managedFields":[{"manager":"kubectl","operation":"Update","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},
 "spec":{"replicas":3,"ratio":0.5,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
  {"name":"app","image":"app:1","env":[{"name":"A","value":"1"}]},{"name":"envoy","image":"envoy:1.30"}]}}},
 "status":{"replicas":3,"conditions":[{"type":"Available","status":"True"}]}},
{"metadata":{"name":"api","namespace":"shop","uid":"u2","resourceVersion":"6"},
 "spec":{"template":{"spec":{"containers":[{"name":"api","image":"api:2"}]}}}}]}`

// profileTarget compiles a Target of a Profile with attrs.
func profileTarget(t *testing.T, attrs ...v1alpha1.Attribute) *target.Compiled {
	t.Helper()
	tg := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "t"}}
	prof := &v1alpha1.KollectProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "p"},
		Spec: v1alpha1.KollectProfileSpec{TargetGVK: v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Attributes: attrs}}
	cfg, err := target.ConfigForTarget(tg, prof, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Access = &busv1.TargetAccess{AllNamespaces: true}
	c, err := target.Compile(cfg, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPrunedDecodingGivesTheSameRows decodes a page whole and pruned to
// what the Targets read, and requires the same rows, byte for byte, and
// less decoded.
func TestPrunedDecodingGivesTheSameRows(t *testing.T) {
	cases := map[string][]*target.Compiled{
		"the CLI benchmark's profile": {profileTarget(t,
			v1alpha1.Attribute{Name: "images", Path: "cel:object.spec.template.spec.containers.map(c, c.image)"},
			v1alpha1.Attribute{Name: "containers", Path: "cel:size(object.spec.template.spec.containers)", Type: "int"},
			v1alpha1.Attribute{Name: "replicas", Path: "$.spec.replicas", Type: "int", Optional: true},
			v1alpha1.Attribute{Name: "owner", Path: "{.metadata.labels.owner}", Optional: true})},
		"two targets reading different fields": {
			profileTarget(t, v1alpha1.Attribute{Name: "ratio", Path: "$.spec.ratio", Optional: true}),
			profileTarget(t, v1alpha1.Attribute{Name: "note", Path: "$.metadata.annotations.note", Optional: true},
				v1alpha1.Attribute{Name: "ready", Path: "$.status.conditions[0].status", Optional: true})},
		"the whole object": {profileTarget(t, v1alpha1.Attribute{Name: "all", Path: "cel:object"})},
	}
	ns := &selection.Namespace{Name: "shop"}
	for name, targets := range cases {
		t.Run(name, func(t *testing.T) {
			collect := func(keep *extract.FieldSet) (rows []string, size int) {
				_, err := decodeList(strings.NewReader(servedList), keep, func(string) {}, func(obj map[string]any) {
					obj["apiVersion"], obj["kind"] = "apps/v1", "Deployment"
					b, _ := json.Marshal(obj)
					size += len(b)
					for _, tg := range targets {
						row, err := tg.Evaluate(&unstructured.Unstructured{Object: obj}, ns)
						if err != nil {
							t.Fatal(err)
						}
						b, _ := json.Marshal(row)
						rows = append(rows, string(b))
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				return rows, size
			}
			want, whole := collect(nil)
			keep := readFields(targets)
			got, pruned := collect(keep)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("rows differ (-whole +pruned):\n%s", d)
			}
			if keep != nil && pruned >= whole {
				t.Errorf("decoded %d bytes of %d: not pruned", pruned, whole)
			}
		})
	}
}

func TestListQuerySendsTheSelectorAllTargetsShare(t *testing.T) {
	selecting := func(sel v1alpha1.ObjectSelection) *target.Compiled {
		t.Helper()
		tg := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "t"},
			Spec: v1alpha1.KollectTargetSpec{ObjectSelection: sel}}
		prof := &v1alpha1.KollectProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "p"},
			Spec: v1alpha1.KollectProfileSpec{TargetGVK: v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
				Attributes: []v1alpha1.Attribute{{Name: "image", Path: "$.spec.image"}}}}
		cfg, err := target.ConfigForTarget(tg, prof, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Access = &busv1.TargetAccess{AllNamespaces: true}
		c, err := target.Compile(cfg, extract.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	web := selecting(v1alpha1.ObjectSelection{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})
	api := selecting(v1alpha1.ObjectSelection{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}})
	one := selecting(v1alpha1.ObjectSelection{Names: []string{"one"}})
	all := selecting(v1alpha1.ObjectSelection{})
	cases := []struct {
		name         string
		targets      []*target.Compiled
		label, field string
	}{
		{"one label selector", []*target.Compiled{web}, "app=web", ""},
		{"the same label selector twice", []*target.Compiled{web, web}, "app=web", ""},
		{"two label selectors", []*target.Compiled{web, api}, "", ""},
		{"one name", []*target.Compiled{one}, "", "metadata.name=one"},
		{"a target of every object", []*target.Compiled{web, all}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := listQuery(c.targets)
			if q.labelSelector != c.label || q.fieldSelector != c.field {
				t.Errorf("listQuery = %q, %q; want %q, %q", q.labelSelector, q.fieldSelector, c.label, c.field)
			}
		})
	}
}
