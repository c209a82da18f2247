// Package googlecredstest holds what tests of tenant Google credentials
// share: a token endpoint that records what it receives, and generated
// keys and configurations.
//
// It is imported by tests only; it does not decide what credentials are
// accepted (package googlecreds does).
package googlecredstest
