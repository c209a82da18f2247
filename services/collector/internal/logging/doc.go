// Package logging names the collector's log keys: the shared lowerCamel
// keys of pkg/app (service, target, gvk, generation...), which builds the
// logger too.
//
// It does not decide what is logged; each package logs an error once, where
// it handles it, and never logs object content or secrets.
package logging
