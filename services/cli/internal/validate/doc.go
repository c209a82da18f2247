// Package validate implements `kollect validate`: offline schema checks of a
// folder of kollect.dev objects (the CRDs' OpenAPI and CEL rules, through the
// API server's own validation code) and semantic checks with the compilers
// the services use (Profile expressions, Target selection, references between
// the objects of the folder).
package validate
