// Package egress owns how exporters reach external sinks: the endpoint
// address policy, checked on every address actually dialed (so a host name
// that resolves, or later re-resolves, to a private address is refused at
// connect time), and the TLS configuration built from a sink's spec.tls.
//
// Every backend dials through Policy.Dialer or Policy.HTTPClient; no backend
// opens its own sockets. Admission-time checks of the endpoint text live in
// control; this package does not resolve names ahead of time.
package egress
