package eventexporter_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/exportertest"
	"kollect.dev/kollect/services/eventexporter"
)

// Every event backend is in the CRD's enum, the API's validation table,
// the docs and the conformance suite, and nothing else is
// (docs/development.md, "Adding a backend").
func TestEveryEventBackendIsRegisteredEverywhere(t *testing.T) {
	exportertest.CheckRegistry(t, busv1.FamilyEvent, eventexporter.Backends(eventexporter.DefaultConfig()),
		func(typ string) field.ErrorList {
			return (&v1alpha1.KollectEventSinkSpec{Type: v1alpha1.EventSinkType(typ)}).Validate()
		})
}
