package tenancy

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/pkg/testenv"
)

// collisionYAML is a Profile whose metric labels are [target,
// attribute_target]: the collector renames an attribute named target to
// attribute_target, so both labels would have one name.
const collisionYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: $name, namespace: team-a, labels: $labels}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes:
  - {name: target, path: $.metadata.name}
  - {name: attribute_target, path: $.metadata.namespace}
  - {name: entries, path: "cel:size(object.data)", type: int, optional: true}
  metrics: [{name: entries, path: entries, labels: [target, attribute_target]}]
`

// collisionTargetYAML collects team-a's ConfigMaps through it.
const collisionTargetYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: $name, namespace: team-a}
spec:
  profileRef: {name: $name}
  includedNamespaces: [team-a]
`

func metricVectors() []vector {
	return []vector{
		{"a metric whose labels collide is refused at reconcile and the collector keeps collecting", func(t *testing.T) {
			c := asAlice(t)
			apply(t, c, collisionYAML, "$name", "collision", "$labels", "{}")
			apply(t, c, collisionTargetYAML, "$name", "collision")
			waitRefused(t, "KollectProfile", teamA, "collision", refuseMetricLabels, nil)
			waitRefused(t, "KollectTarget", teamA, "collision", refuseMetricLabels, nil)
			collectorAlive(t)
		}},
		{"a metric whose labels collide is denied by the webhook", func(t *testing.T) {
			err := tryApply(t, asAlice(t), collisionYAML, "$name", "collision-admission", "$labels", `{`+labelAdmission+`: "on"}`)
			denied(t, err, denyMetrics)
		}},
	}
}

// collectorAlive creates a ConfigMap in team-a after the colliding
// Profile and expects a plain Target to collect it: the collector still
// runs. (dev.Run serves no /metrics, so no scrape can be made here.)
func collectorAlive(t *testing.T) {
	c := asAlice(t)
	apply(t, c, `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: alive, namespace: team-a}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes: [{name: name, path: $.metadata.name}]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: alive, namespace: team-a}
spec:
  profileRef: {name: alive}
  includedNamespaces: [team-a]
  names: [after-collision]
`)
	create(t, c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "after-collision"}})
	testenv.Eventually(t, refusalWait, "the collector collects a ConfigMap made after the colliding Profile", func() error {
		rows, err := rowsOf(t.Context(), teamA, "alive")
		if err != nil {
			return err
		}
		if len(rows) != 1 {
			return fmt.Errorf("%d rows, want 1", len(rows))
		}
		return nil
	}, testenv.Every(200*time.Millisecond))
}
