package googlecreds

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"

	"kollect.dev/kollect/pkg/sink"
)

// TokenError is a token endpoint's refusal, without its answer's body.
type TokenError struct {
	// Status is the HTTP status of the token endpoint's answer.
	Status int
}

func (e *TokenError) Error() string {
	return fmt.Sprintf("fetch an OAuth2 token: the token endpoint answered HTTP %d", e.Status)
}

// Temporary reports whether a retry may succeed (408, 429, 500, 503), as
// auth.Error does, so that client libraries retry the same answers.
func (e *TokenError) Temporary() bool {
	switch e.Status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// Credentials returns the key's credentials for scopes. Every token request
// goes through client (the sink's egress policy client) to the key's token
// endpoint; token errors quote no answer body, and a 4xx answer other than
// 408 and 429 is sink.Permanent. The library's own errors are not passed on:
// they may quote the key.
func (k *Key) Credentials(scopes []string, client *http.Client) (*auth.Credentials, error) {
	typ := credentials.ServiceAccount
	if k.Type == AuthorizedUser {
		typ = credentials.AuthorizedUser
	} else if !privateKeyParses(k.privateKey) {
		return nil, sink.Permanent(errors.New("credentials.json: private_key is not a PEM PKCS#8 or PKCS#1 RSA key"))
	}
	c, err := credentials.NewCredentialsFromJSON(typ, k.json, &credentials.DetectOptions{
		Scopes: scopes, Client: client, TokenURL: k.tokenURL})
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("credentials.json: not a usable %s key", k.Type))
	}
	return auth.NewCredentials(&auth.CredentialsOptions{
		TokenProvider:          quiet{c},
		JSON:                   k.json,
		ProjectIDProvider:      auth.CredentialsPropertyFunc(c.ProjectID),
		QuotaProjectIDProvider: auth.CredentialsPropertyFunc(c.QuotaProjectID),
		UniverseDomainProvider: auth.CredentialsPropertyFunc(c.UniverseDomain),
	}), nil
}

// privateKeyParses reports whether pemKey holds a private key the library
// can sign with.
func privateKeyParses(pemKey string) bool {
	b, _ := pem.Decode([]byte(pemKey))
	if b == nil {
		return false
	}
	if _, err := x509.ParsePKCS8PrivateKey(b.Bytes); err == nil {
		return true
	}
	_, err := x509.ParsePKCS1PrivateKey(b.Bytes)
	return err == nil
}

// quiet is a TokenProvider whose errors carry no token endpoint answer.
type quiet struct{ tp auth.TokenProvider }

// Token implements auth.TokenProvider.
func (q quiet) Token(ctx context.Context) (*auth.Token, error) {
	t, err := q.tp.Token(ctx)
	if err != nil {
		return nil, tokenError(ctx, err)
	}
	return t, nil
}

// tokenError is err without anything a token endpoint answered: its HTTP
// status for an answer, the URL error for a failed request (the URL is the
// fixed token endpoint), a generic error otherwise.
func tokenError(ctx context.Context, err error) error {
	var ae *auth.Error
	if errors.As(err, &ae) && ae.Response != nil {
		te := &TokenError{Status: ae.Response.StatusCode}
		if te.Status >= 400 && te.Status < 500 && te.Status != http.StatusRequestTimeout && te.Status != http.StatusTooManyRequests {
			return sink.Permanent(te)
		}
		return te
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("fetch an OAuth2 token: %w", ue)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("fetch an OAuth2 token: %w", ctx.Err())
	}
	return errors.New("fetch an OAuth2 token: the token endpoint's answer is not usable")
}
