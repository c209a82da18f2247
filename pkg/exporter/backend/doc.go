// Package backend is what a sink backend needs from Kollect, and nothing
// more: the Backend interface a family service lists, the Credentials it
// reads Secrets through (MapCredentials for tests), DecodeSpec and
// SecretData, the opening every backend's New shares, and the refusals
// (Denied, Unresolved, MissingKey, AmbientCredentials) under the operator's
// CredentialPolicy. The runtime that calls backends is pkg/exporter;
// docs/development.md walks through adding one.
package backend
