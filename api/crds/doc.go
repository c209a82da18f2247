// Package crds embeds the generated CustomResourceDefinitions of
// kollect.dev/v1alpha1 (`make generate` writes the YAML files beside this
// one), so that binaries can install them or validate objects offline with the
// same schema and CEL rules the API server enforces.
package crds

import "embed"

// FS holds every CRD manifest of this folder.
//
//go:embed *.yaml
var FS embed.FS
