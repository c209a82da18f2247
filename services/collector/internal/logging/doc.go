// Package logging builds the collector's structured logger (zap behind logr)
// and holds the log keys it uses, so that every line names things the same
// way: lowerCamel keys such as service, target, gvk and generation.
//
// It does not decide what is logged; each package logs an error once, where
// it handles it, and never logs object content or secrets.
package logging
