package bus

import (
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a URL without credentials is kept", "nats://kollect-nats:4222", "nats://kollect-nats:4222"},
		{"a user and password are redacted", "nats://control:CANARY@kollect-nats:4222", "nats://redacted@kollect-nats:4222"},
		{"a token is redacted", "tls://CANARY@nats.example.com", "tls://redacted@nats.example.com"},
		{"every URL of a list is redacted", "nats://u:CANARY@a:4222,nats://u:CANARY@b:4222", "nats://redacted@a:4222,nats://redacted@b:4222"},
		{"a quoted URL in an error is redacted", `parse "nats://u:CANARY@h:x": invalid port`, `parse "nats://redacted@h:x": invalid port`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RedactURL(tc.in); got != tc.want {
				t.Fatalf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestAConnectErrorDoesNotQuoteThePassword(t *testing.T) {
	_, _, err := Connect("nats://control:CANARY@127.0.0.1:notaport", busv1.ServiceControl)
	if err == nil {
		t.Fatal("connect to an unparsable URL succeeded")
	}
	if strings.Contains(err.Error(), "CANARY") || !strings.Contains(err.Error(), "redacted@127.0.0.1") {
		t.Fatalf("the error %q quotes the password or hides the address", err)
	}
}
