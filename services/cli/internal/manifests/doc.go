// Package manifests loads a folder of Kollect custom-resource files (YAML or
// JSON, several documents per file) for the command line: every object keeps
// the file and document it came from, so that messages can name them.
//
// manifests only reads and decodes; validation and collection are the
// callers' business.
package manifests
