//go:build tools

// Package helm pins the Helm CLI (helm.sh/helm/v3) built by deploy/tools/build.sh into the
// tools cache for the chart tests. Its dependency versions are independent of the main
// module: this is a module of its own, never imported.
package helm

import _ "helm.sh/helm/v3/cmd/helm"
