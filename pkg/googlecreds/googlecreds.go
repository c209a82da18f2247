package googlecreds

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// The credential types Parse can accept.
const (
	// ServiceAccount is a service account key: a private key signing a JWT
	// exchanged at Google's token endpoint.
	ServiceAccount = "service_account"
	// AuthorizedUser is a user's OAuth client and refresh token, exchanged
	// at Google's fixed token endpoint (never one the file names).
	AuthorizedUser = "authorized_user"
)

// GoogleTokenURL is Google's OAuth 2.0 token endpoint, the only one a
// service account key may name unless Options.TokenURL says otherwise.
const GoogleTokenURL = "https://oauth2.googleapis.com/token" //nolint:gosec // G101: a public endpoint URL, not a credential

// defaultUniverse is the only universe domain accepted.
const defaultUniverse = "googleapis.com"

// knownTypes are the credential types of the Google auth library, named in
// refusals; any other type value is not quoted (it is the Secret's content).
var knownTypes = []string{ServiceAccount, AuthorizedUser, "external_account", "external_account_authorized_user",
	"impersonated_service_account", "gdch_service_account"}

// Options say what Parse accepts.
type Options struct {
	// Types are the accepted credential types; empty means ServiceAccount
	// only.
	Types []string
	// TokenURL is the token endpoint every accepted credential uses, and
	// the only one a service account key may name; empty means
	// GoogleTokenURL. Tests point it at an emulator.
	TokenURL string
}

// Key is an accepted credentials.json, rewritten to the fields its type
// uses.
type Key struct {
	// Type is ServiceAccount or AuthorizedUser.
	Type string
	// ProjectID is the key's project_id, empty for authorized_user.
	ProjectID  string
	json       []byte
	tokenURL   string
	privateKey string
}

// serviceAccountKey holds the fields of a service account key the library
// uses to sign its JWT.
type serviceAccountKey struct {
	Type           string `json:"type"`
	ProjectID      string `json:"project_id,omitempty"`
	PrivateKeyID   string `json:"private_key_id,omitempty"`
	PrivateKey     string `json:"private_key"`
	ClientEmail    string `json:"client_email"`
	ClientID       string `json:"client_id,omitempty"`
	TokenURI       string `json:"token_uri"`
	UniverseDomain string `json:"universe_domain,omitempty"`
}

// authorizedUserKey holds the fields of an authorized_user file the library
// uses; the token endpoint is not one of them.
type authorizedUserKey struct {
	Type           string `json:"type"`
	ClientID       string `json:"client_id"`
	ClientSecret   string `json:"client_secret"`
	RefreshToken   string `json:"refresh_token"`
	QuotaProjectID string `json:"quota_project_id,omitempty"`
	UniverseDomain string `json:"universe_domain,omitempty"`
}

// Parse checks credentials.json js against o and returns the key. An
// unaccepted type is a permanent CredentialsDenied error; a malformed file
// is a permanent error. Errors never quote the file's content.
func Parse(js []byte, o Options) (*Key, error) {
	types := o.Types
	if len(types) == 0 {
		types = []string{ServiceAccount}
	}
	tokenURL := o.TokenURL
	if tokenURL == "" {
		tokenURL = GoogleTokenURL
	}
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(js, &head) != nil {
		return nil, sink.Permanent(errors.New("credentials.json is not a JSON object"))
	}
	if !slices.Contains(types, head.Type) {
		return nil, backend.Denied(v1alpha1.ReasonCredentialsDenied, fmt.Errorf("credentials.json: unsupported credential type %s: accepted types are %v",
			typeName(head.Type), types))
	}
	k := &Key{Type: head.Type, tokenURL: tokenURL}
	var err error
	if head.Type == ServiceAccount {
		err = k.serviceAccount(js)
	} else {
		err = k.authorizedUser(js)
	}
	if err != nil {
		return nil, err
	}
	return k, nil
}

// serviceAccount checks a service account key and keeps its fields with
// the token endpoint set to k.tokenURL.
func (k *Key) serviceAccount(js []byte) error {
	var sa serviceAccountKey
	if err := json.Unmarshal(js, &sa); err != nil {
		return sink.Permanent(errors.New("credentials.json: not a service account key"))
	}
	switch {
	case sa.PrivateKey == "" || sa.ClientEmail == "":
		return sink.Permanent(errors.New("credentials.json: a service account key needs private_key and client_email"))
	case sa.TokenURI != "" && sa.TokenURI != k.tokenURL:
		return backend.Denied(v1alpha1.ReasonCredentialsDenied, fmt.Errorf("credentials.json: token_uri must be %s", k.tokenURL))
	case sa.UniverseDomain != "" && sa.UniverseDomain != defaultUniverse:
		return backend.Denied(v1alpha1.ReasonCredentialsDenied, fmt.Errorf("credentials.json: universe_domain must be %s", defaultUniverse))
	}
	sa.TokenURI, sa.UniverseDomain = k.tokenURL, ""
	k.ProjectID, k.privateKey = sa.ProjectID, sa.PrivateKey
	k.json, _ = json.Marshal(sa) //nolint:gosec // G117: the key is handed to the auth library, never logged; strings only: always encodes
	return nil
}

// authorizedUser checks an authorized_user file and keeps its fields.
func (k *Key) authorizedUser(js []byte) error {
	var au authorizedUserKey
	if err := json.Unmarshal(js, &au); err != nil {
		return sink.Permanent(errors.New("credentials.json: not an authorized_user file"))
	}
	switch {
	case au.ClientID == "" || au.ClientSecret == "" || au.RefreshToken == "":
		return sink.Permanent(errors.New("credentials.json: an authorized_user file needs client_id, client_secret and refresh_token"))
	case au.UniverseDomain != "" && au.UniverseDomain != defaultUniverse:
		return backend.Denied(v1alpha1.ReasonCredentialsDenied, fmt.Errorf("credentials.json: universe_domain must be %s", defaultUniverse))
	}
	au.UniverseDomain = ""
	k.json, _ = json.Marshal(au) //nolint:gosec // G117: the file is handed to the auth library, never logged; strings only: always encodes
	return nil
}

// typeName quotes t when it is a credential type the library knows.
func typeName(t string) string {
	switch {
	case t == "":
		return "(none)"
	case slices.Contains(knownTypes, t):
		return fmt.Sprintf("%q", t)
	}
	return "(unknown)"
}
