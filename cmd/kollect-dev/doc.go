// Command kollect-dev runs every Kollect service in one process against the
// current kubeconfig context; `kollect dev` runs it.
package main
