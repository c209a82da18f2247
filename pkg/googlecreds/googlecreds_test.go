package googlecreds_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/googlecreds"
	"kollect.dev/kollect/pkg/googlecreds/googlecredstest"
	"kollect.dev/kollect/pkg/sink"
)

// wantDenied fails unless err is a permanent CredentialsDenied error
// containing msg.
func wantDenied(t *testing.T, err error, msg string) {
	t.Helper()
	if v1alpha1.ReasonOf(err) != v1alpha1.ReasonCredentialsDenied || !sink.IsPermanent(err) || !strings.Contains(err.Error(), msg) {
		t.Fatalf("got %v, want a permanent CredentialsDenied error saying %q", err, msg)
	}
}

func TestOnlyTheAcceptedCredentialTypesAreParsed(t *testing.T) {
	sa := googlecredstest.ServiceAccount(t, "")
	au := []byte(`{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}`)
	for _, tc := range []struct {
		name  string
		js    string
		types []string
		want  string // "" when accepted
	}{
		{"a service account key is accepted", string(sa), nil, ""},
		{"authorized_user is refused where only service accounts are accepted", string(au), nil, `unsupported credential type "authorized_user"`},
		{"authorized_user is accepted where asked for", string(au), []string{googlecreds.ServiceAccount, googlecreds.AuthorizedUser}, ""},
		{"external_account is refused", `{"type":"external_account","token_url":"http://127.0.0.1:1/t","credential_source":{"file":"/etc/passwd"}}`,
			[]string{googlecreds.ServiceAccount, googlecreds.AuthorizedUser}, `unsupported credential type "external_account"`},
		{"impersonated_service_account is refused", `{"type":"impersonated_service_account","service_account_impersonation_url":"http://127.0.0.1:1"}`,
			nil, `unsupported credential type "impersonated_service_account"`},
		{"external_account_authorized_user is refused", `{"type":"external_account_authorized_user","token_url":"http://127.0.0.1:1"}`,
			nil, `unsupported credential type "external_account_authorized_user"`},
		{"gdch_service_account is refused", `{"type":"gdch_service_account","token_uri":"http://127.0.0.1:1"}`,
			nil, `unsupported credential type "gdch_service_account"`},
		{"an unknown type is refused without quoting it", `{"type":"CANARY-TYPE"}`, nil, "unsupported credential type (unknown)"},
		{"a file without a type is refused", `{"private_key":"x"}`, nil, "unsupported credential type (none)"},
		{"a service account key naming another token endpoint is refused", string(googlecredstest.ServiceAccount(t, "http://127.0.0.1:1/token")),
			nil, "token_uri must be https://oauth2.googleapis.com/token"},
		{"a service account key of another universe is refused",
			`{"type":"service_account","private_key":"k","client_email":"e","universe_domain":"evil.example"}`, nil, "universe_domain must be googleapis.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := googlecreds.Parse([]byte(tc.js), googlecreds.Options{Types: tc.types})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			wantDenied(t, err, tc.want)
			if strings.Contains(err.Error(), "CANARY") {
				t.Fatalf("the refusal %q quotes the file", err)
			}
		})
	}
}

func TestMalformedCredentialsArePermanentAndNotQuoted(t *testing.T) {
	for _, tc := range []struct{ name, js string }{
		{"not JSON", `CANARY-not-json`},
		{"a service account key without client_email", `{"type":"service_account","private_key":"CANARY"}`},
		{"an authorized_user file without a refresh token", `{"type":"authorized_user","client_id":"c","client_secret":"CANARY"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := googlecreds.Parse([]byte(tc.js), googlecreds.Options{Types: []string{googlecreds.ServiceAccount, googlecreds.AuthorizedUser}})
			if !sink.IsPermanent(err) || strings.Contains(err.Error(), "CANARY") {
				t.Fatalf("Parse: %v, want a permanent error that does not quote the file", err)
			}
		})
	}
	t.Run("an unparsable private key is refused when the credentials are built", func(t *testing.T) {
		k, err := googlecreds.Parse([]byte(`{"type":"service_account","private_key":"CANARY","client_email":"e"}`), googlecreds.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Credentials(nil, http.DefaultClient); !sink.IsPermanent(err) || strings.Contains(err.Error(), "CANARY") {
			t.Fatalf("Credentials: %v, want a permanent error that does not quote the key", err)
		}
	})
}

// The review's probe (C3, M1): a service account key whose token_uri is a
// loopback server. The server is never contacted.
func TestAServiceAccountKeyNamingALoopbackTokenEndpointContactsNothing(t *testing.T) {
	ts := googlecredstest.StartTokenServer(t, http.StatusBadRequest, `{"error":"internal-service-body"}`)
	_, err := googlecreds.Parse(googlecredstest.ServiceAccount(t, ts.URL+"/token"), googlecreds.Options{})
	wantDenied(t, err, "token_uri must be "+googlecreds.GoogleTokenURL)
	if got := ts.Requests(); len(got) != 0 {
		t.Fatalf("the token endpoint received %d requests", len(got))
	}
}

func TestTokenErrorsCarryTheStatusButNotTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		permanent bool
	}{
		{"a refused key is permanent", http.StatusBadRequest, true},
		{"an unauthorized key is permanent", http.StatusUnauthorized, true},
		{"a rate limit is transient", http.StatusTooManyRequests, false},
		{"a server error is transient", http.StatusServiceUnavailable, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := googlecredstest.StartTokenServer(t, tc.status, `{"error":"invalid_grant","error_description":"CANARY-BODY"}`)
			k, err := googlecreds.Parse(googlecredstest.ServiceAccount(t, ts.URL), googlecreds.Options{TokenURL: ts.URL})
			if err != nil {
				t.Fatal(err)
			}
			c, err := k.Credentials([]string{"https://www.googleapis.com/auth/devstorage.read_write"},
				egress.Policy{AllowPrivate: true}.HTTPClient(nil))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Token(context.Background())
			var te *googlecreds.TokenError
			if !errors.As(err, &te) || te.Status != tc.status || sink.IsPermanent(err) != tc.permanent {
				t.Fatalf("Token: %v, want a TokenError %d (permanent %t)", err, tc.status, tc.permanent)
			}
			if strings.Contains(err.Error(), "CANARY") {
				t.Fatalf("the error %q quotes the token endpoint's answer", err)
			}
			if len(ts.Requests()) == 0 {
				t.Fatal("the token endpoint was not asked")
			}
		})
	}
}

func TestTokenRequestsGoThroughTheGivenClient(t *testing.T) {
	ts := googlecredstest.StartTokenServer(t, http.StatusOK, `{"access_token":"t","token_type":"Bearer","expires_in":3600}`)
	k, err := googlecreds.Parse(googlecredstest.ServiceAccount(t, ts.URL), googlecreds.Options{TokenURL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	// The default policy refuses loopback: the request must fail at dial.
	c, err := k.Credentials(nil, egress.Policy{}.HTTPClient(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Token(context.Background()); !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("Token through a policy refusing loopback: %v, want egress.ErrDenied", err)
	}
	if n := len(ts.Requests()); n != 0 {
		t.Fatalf("the token endpoint received %d requests past the policy", n)
	}
	c, err = k.Credentials(nil, egress.Policy{AllowPrivate: true}.HTTPClient(nil))
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := c.Token(context.Background()); err != nil || tok.Value != "t" {
		t.Fatalf("Token through a policy allowing loopback: %v, %v", tok, err)
	}
}
