// Package command is the kollect-dev command line: the flags of `kollect
// dev`, the kubeconfig, the logger and the CRD installation around
// dev.Run. It is a binary of its own because it links every service and
// sink SDK; the everyday kollect CLI runs it for `kollect dev`
// (services/cli/plugin.go).
package command
