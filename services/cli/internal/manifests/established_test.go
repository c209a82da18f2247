package manifests

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/target"
)

const fixtures = "../../../../api/v1alpha1/testdata/"

// load reads and sorts a fixture folder of api/v1alpha1/testdata.
func load(t *testing.T, dir string) *Set {
	t.Helper()
	objs, err := Load(fixtures + dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Sort(objs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEstablishedSpellingsLoadLikeTheirCanonicalTwins(t *testing.T) {
	est, canon := load(t, "established"), load(t, "canonical")
	twins := map[string]Typed{}
	for _, c := range canon.Kollect {
		twins[c.Object.Object.GetKind()+"/"+c.Object.Object.GetName()] = c
	}
	compared := 0
	for _, e := range est.Kollect {
		c, ok := twins[e.Object.Object.GetKind()+"/"+e.Object.Object.GetName()]
		if !ok {
			continue
		}
		compared++
		t.Run(e.Source()+" reads as its canonical twin", func(t *testing.T) {
			if d := cmp.Diff(specJSON(t, c.Typed), specJSON(t, e.Typed)); d != "" {
				t.Errorf("(-canonical +established):\n%s", d)
			}
		})
	}
	if compared < len(canon.Kollect) {
		t.Errorf("compared %d pairs, want %d (every canonical fixture has an established twin)", compared, len(canon.Kollect))
	}
}

func TestEstablishedTargetCompilesLikeItsCanonicalTwin(t *testing.T) {
	est, canon := load(t, "established"), load(t, "canonical")
	if len(est.Targets) != 1 || len(canon.Targets) != 1 {
		t.Fatalf("got %d and %d targets, want one of each", len(est.Targets), len(canon.Targets))
	}
	prof := &v1alpha1.KollectProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "deployment-images", Generation: 2},
		Spec: v1alpha1.KollectProfileSpec{
			TargetGVK:  v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Attributes: []v1alpha1.Attribute{{Name: "image", Path: "$.spec.template.spec.containers[0].image"}},
		},
	}
	scope := &est.Scopes[0].Spec.ScopeRules
	want, err := target.ConfigForTarget(canon.Targets[0], prof, &canon.Scopes[0].Spec.ScopeRules)
	if err != nil {
		t.Fatal(err)
	}
	got, err := target.ConfigForTarget(est.Targets[0], prof, scope)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("compiled config (-canonical +established):\n%s", d)
	}
	if got.ProfileRef.Name != "deployment-images" {
		t.Errorf("profile %q, want deployment-images", got.ProfileRef.Name)
	}
}

func specJSON(t *testing.T, obj any) any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m["spec"]
}
