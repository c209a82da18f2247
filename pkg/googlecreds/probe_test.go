//go:build linux

package googlecreds_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"cloud.google.com/go/auth/credentials"

	"kollect.dev/kollect/pkg/googlecreds"
	"kollect.dev/kollect/pkg/googlecreds/googlecredstest"
	"kollect.dev/kollect/pkg/testenv"
)

// The review's C3 probe: an external_account configuration whose subject
// token is a local file and whose token URL is the tenant's server.
func TestAnExternalAccountNeitherOpensItsFileNorCallsItsTokenURL(t *testing.T) {
	t.Run("the auth library alone would send the file to the token URL", func(t *testing.T) {
		// The control: the probe is real, so the refusal below matters.
		file, opened := testenv.Tripwire(t, "EXPORTER-SA-TOKEN-CANARY")
		ts := googlecredstest.StartTokenServer(t, http.StatusBadRequest, `{"error":"no"}`)
		c, err := credentials.NewCredentialsFromJSON(credentials.ExternalAccount, googlecredstest.ExternalAccount(t, ts.URL, file),
			&credentials.DetectOptions{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}, Client: http.DefaultClient})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Token(context.Background())
		if got := ts.Requests(); !opened() || len(got) != 1 || !strings.Contains(got[0], "EXPORTER-SA-TOKEN-CANARY") {
			t.Fatalf("opened %t, token requests %q: the probe no longer shows the leak", opened(), got)
		}
	})
	t.Run("Parse refuses it before the library sees it", func(t *testing.T) {
		file, opened := testenv.Tripwire(t, "EXPORTER-SA-TOKEN-CANARY")
		ts := googlecredstest.StartTokenServer(t, http.StatusBadRequest, `{"error":"no"}`)
		_, err := googlecreds.Parse(googlecredstest.ExternalAccount(t, ts.URL, file),
			googlecreds.Options{Types: []string{googlecreds.ServiceAccount, googlecreds.AuthorizedUser}})
		wantDenied(t, err, `unsupported credential type "external_account"`)
		if opened() || len(ts.Requests()) != 0 {
			t.Fatalf("opened %t, %d token requests: want neither", opened(), len(ts.Requests()))
		}
	})
}
