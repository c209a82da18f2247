// Package initsecrets makes the credentials the kollect chart does not
// render, so that two renders of the chart are byte-identical (GitOps tools
// then never rotate them): the NATS users' passwords and the query service's
// serving certificate, created in the cluster by a Helm hook Job running
// `kollect-control init-secrets`, and the query APIService's caBundle, set
// from that certificate's CA after the APIService exists.
//
// Every step is idempotent: a Secret that exists is kept (a NATS users
// Secret only gains the keys it lacks), a valid certificate for the same
// hosts is kept, and a caBundle already equal to the CA is not patched.
package initsecrets
