package reconcile

import "sigs.k8s.io/controller-runtime/pkg/client"

// ctrlObject is client.Object. It stays only for sinkview.go, which the
// backend work (endpoint lists on the API types) rewrites; delete it then.
type ctrlObject = client.Object
