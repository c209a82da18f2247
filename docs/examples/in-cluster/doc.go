// Package incluster holds the self-contained first inventory that the kollect chart's NOTES
// tell a user to apply (`kubectl apply -f docs/examples/in-cluster/`) and the test that it
// becomes Ready on a cluster where only Kollect runs. The e2ecluster test of deploy/e2e
// applies the same folder on a real node after the README's helm install.
package incluster
