// Package exportertest holds checks every exporter family runs against its
// own list of backends.
// The checks drive the real exporter runtime or the backends' constructors
// (which Secrets they read, what credentials they refuse); they are imported
// by tests only and hold no backend of their own.
package exportertest
