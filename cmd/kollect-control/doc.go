// Command kollect-control runs the Kollect control service.
//
// `kollect-control init-secrets` instead makes the credentials the kollect
// chart does not render (its Helm hook Jobs run it): the NATS users'
// passwords, the query service's serving certificate and the query
// APIService's caBundle (services/control/initsecrets, docs/install.md).
package main
