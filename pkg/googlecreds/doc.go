// Package googlecreds reads the Google credentials a tenant puts in a sink's
// Secret (the credentials.json key of gcs and bigquery sinks) and turns them
// into auth.Credentials that cannot be used against the exporter.
//
// The Google auth library acts on whatever a credentials file says:
// external_account configurations make the process read local files (its
// service account token), run executables, or call metadata servers, and
// send the result to a token URL the file chooses; impersonated and
// gdch types call other chosen URLs; a service account key's token_uri is
// fetched wherever it points. A tenant's file must therefore never reach
// the library as written. Parse accepts only the types a sink asks for
// (service_account, and authorized_user where documented: its token URL is
// the library's fixed Google endpoint), checks that a service account key
// names Google's token endpoint (or none) and the default universe, and
// keeps only the fields those types use; anything else is refused before
// the library sees it, as a permanent CredentialsDenied error.
//
// Key.Credentials builds the credentials with the caller's HTTP client (the
// sink's egress policy client) for every token request, and wraps their
// token provider so that a token endpoint's answer body never appears in an
// error: a refused token is a TokenError carrying only the HTTP status.
package googlecreds
