// Package databaseexporter is the exporter of the database family: it runs
// the shared exporter runtime (pkg/exporter) with the backends that keep
// one row or document per collected object, listed once in Backends (its
// imports are the SDK list). Each backend owns its table layout and its
// transaction; the runtime owns ordering, retries, claims, status and
// credentials.
package databaseexporter
