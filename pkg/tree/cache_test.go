package tree_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/tree"
)

func TestRendererRendersLikeRender(t *testing.T) {
	var r tree.Renderer
	first := fixtureRows()
	changed := fixtureRows()
	changed[0].Attributes = map[string]any{"image": "nginx:1.28"}
	other := fixture(t, fixtureRows()[2:])
	other.Inventory.Name = "other"
	for _, mode := range []string{tree.ModePerResource, tree.ModeSplit, tree.ModeDocument} {
		for i, env := range []busv1.Envelope{fixture(t, first), fixture(t, changed), other, fixture(t, changed), fixture(t, nil)} {
			s := tree.Spec{Mode: mode}
			want, err := tree.Render(s, env)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Render(s, env)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(dump(want), dump(got)); d != "" {
				t.Fatalf("%s render %d (-Render +Renderer):\n%s", mode, i, d)
			}
		}
	}
	r.Forget("prod", busv1.NamespacedName{Namespace: "team-a", Name: "web"})
}
