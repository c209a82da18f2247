package control_test

import (
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
)

// TestWebhookRefusesMetricLabelCollisions: a Profile metric whose labels
// become the same label name as each other or as the built-in target label
// (H4) is refused at admission, naming spec.metrics[i].labels.
func TestWebhookRefusesMetricLabelCollisions(t *testing.T) {
	ns := webhookNamespace(t)
	p := profile(ns, "collide", configMaps)
	p.Spec.Attributes = append(p.Spec.Attributes,
		v1alpha1.Attribute{Name: "target", Path: "$.metadata.namespace"},
		v1alpha1.Attribute{Name: "attribute_target", Path: "$.metadata.uid"},
		v1alpha1.Attribute{Name: "size", Path: "cel:size(object.data)", Type: v1alpha1.AttributeInt})
	p.Spec.Metrics = []v1alpha1.ProfileMetric{{Name: "size", Path: "size", Labels: []string{"target", "attribute_target"}}}
	refused(t, "denial", func() error { return shared.kube.Client.Create(t.Context(), p.DeepCopy()) }, "spec.metrics[0].labels")
}
