package nats_test

import (
	"context"
	"testing"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// operatorCreds sets up operator-mode (decentralised JWT) authentication:
// an operator, a system account, an account with JetStream and one user,
// and returns the server options' setter and the user's credentials file.
func operatorCreds(t *testing.T) (func(*server.Options), []byte, []byte) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Helper()
			t.Fatal(err)
		}
	}
	okp, err := nkeys.CreateOperator()
	must(err)
	opub, _ := okp.PublicKey()
	oc := jwt.NewOperatorClaims(opub)
	account := func(js bool) (nkeys.KeyPair, string, string) {
		akp, err := nkeys.CreateAccount()
		must(err)
		apub, _ := akp.PublicKey()
		ac := jwt.NewAccountClaims(apub)
		if js {
			ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
		}
		ajwt, err := ac.Encode(okp)
		must(err)
		return akp, apub, ajwt
	}
	_, sysPub, sysJWT := account(false)
	akp, apub, ajwt := account(true)
	user := func(seedOK bool) []byte {
		ukp, err := nkeys.CreateUser()
		must(err)
		upub, _ := ukp.PublicKey()
		uc := jwt.NewUserClaims(upub)
		signer := akp
		if !seedOK { // signed by a key the account does not know
			signer, _ = nkeys.CreateAccount()
		}
		ujwt, err := uc.Encode(signer)
		must(err)
		seed, _ := ukp.Seed()
		creds, err := jwt.FormatUserConfig(ujwt, seed)
		must(err)
		return creds
	}
	resolver := &server.MemAccResolver{}
	must(resolver.Store(sysPub, sysJWT))
	must(resolver.Store(apub, ajwt))
	set := func(o *server.Options) {
		o.TrustedOperators = []*jwt.OperatorClaims{oc}
		o.AccountResolver = resolver
		o.SystemAccount = sysPub
	}
	return set, user(true), user(false)
}

func TestUserCredentialsFile(t *testing.T) {
	set, good, bad := operatorCreds(t)
	p := startNATS(t, set, nats.UserCredentialBytes(good))
	tests := []struct {
		name  string
		creds []byte
		ok    bool
	}{
		{"a credentials file of the account publishes", good, true},
		{"a user signed by an unknown key is permanent", bad, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink(t, private, sinkConfig(t, withSecret(spec(p.url, "creds.events", "CREDS"))), secret("creds", string(tt.creds)))
			err := s.Write(context.Background(), snap(t, 1, row("a", 1)))
			if tt.ok {
				if err != nil {
					t.Fatalf("write: %v", err)
				}
				return
			}
			expectPermanent(t, err, "Authorization Violation")
		})
	}
}
