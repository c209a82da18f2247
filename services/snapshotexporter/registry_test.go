package snapshotexporter_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/exportertest"
	"kollect.dev/kollect/services/snapshotexporter"
)

// Every snapshot backend is in the CRD's enum, the API's validation table,
// the docs and the conformance suite, and nothing else is
// (docs/development.md, "Adding a backend").
func TestEverySnapshotBackendIsRegisteredEverywhere(t *testing.T) {
	exportertest.CheckRegistry(t, busv1.FamilySnapshot, snapshotexporter.Backends(snapshotexporter.DefaultConfig()),
		func(typ string) field.ErrorList {
			return (&v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotSinkType(typ)}).Validate()
		})
}
