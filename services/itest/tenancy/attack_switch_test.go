package tenancy

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// switchYAML is a Target over team-a and team-b for ConfigMaps, which
// team-b's admin lets team-a's ServiceAccount read.
const switchYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata:
  name: switch
  namespace: team-a
  annotations: {kollect.dev/allow-secret-extraction: "true"}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes: [{name: data, path: $.data, optional: true}]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: switch, namespace: team-a}
spec:
  profileRef: {name: switch}
  includedNamespaces: [team-a, team-b]
`

// profileSwitch runs the admitted ConfigMap Target until it collects
// team-b's ConfigMap, then switches its Profile to Secrets: team-b's
// Secrets must never be collected.
func profileSwitch(t *testing.T) {
	c := asAlice(t)
	apply(t, c, switchYAML)
	testenv.Eventually(t, refusalWait, "the ConfigMap Target is ready and collects team-b's ConfigMap", func() error {
		conds, err := conditionsOf(t.Context(), "KollectTarget", teamA, "switch")
		if err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(conds, v1alpha1.ConditionReady) {
			return fmt.Errorf("conditions: %s", describe(conds))
		}
		rows, err := rowsOf(t.Context(), teamA, "switch")
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.Namespace == teamB && r.Name == "public-settings" {
				return nil
			}
		}
		return fmt.Errorf("%d rows, none of team-b/public-settings", len(rows))
	}, testenv.Every(200*time.Millisecond))
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p := &v1alpha1.KollectProfile{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: teamA, Name: "switch"}, p); err != nil {
			return err
		}
		p.Spec.TargetGVK = v1alpha1.GroupVersionKind{Version: "v1", Kind: "Secret"}
		return c.Update(t.Context(), p)
	})
	if err != nil {
		t.Fatalf("switch the Profile to Secrets: %v", err)
	}
	waitRefused(t, "KollectTarget", teamA, "switch", refuseTargetAccess,
		foreignRows(t.Context(), teamA, "switch", []string{teamA}, "Secret"))
}
