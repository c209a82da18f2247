package bigquery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

const sinkNS = "kollect-system"

func TestNewRefusesInvalidConfig(t *testing.T) {
	creds := backend.MapCredentials{{Namespace: sinkNS, Name: "nokey"}: {"key.json": []byte("{}")},
		{Namespace: sinkNS, Name: "garbage"}: {CredentialsKey: []byte(`{"type":"service_account","project_id":"p","private_key":"s3cr3t-value"}`)}}
	tests := []struct {
		name, spec, mention string
	}{
		{"a spec without the bigquery block names it", `{"type":"bigquery"}`, "spec.bigquery"},
		{"another type is refused", `{"type":"postgres","bigquery":{"dataset":"d","table":"t"}}`, "spec.type"},
		{"a backquote in the table is refused", "{\"type\":\"bigquery\",\"bigquery\":{\"project\":\"p1\",\"dataset\":\"d\",\"table\":\"t`x\"}}", "spec.bigquery.table"},
		{"a dot in the dataset is refused", `{"type":"bigquery","bigquery":{"project":"p1","dataset":"a.b","table":"t"}}`, "spec.bigquery.dataset"},
		{"an invalid project is refused", `{"type":"bigquery","bigquery":{"project":"P 1","dataset":"d","table":"t"}}`, "spec.bigquery.project"},
		{"an invalid location is refused", `{"type":"bigquery","bigquery":{"project":"p1","dataset":"d","table":"t","location":"eu west"}}`, "spec.bigquery.location"},
		{"a missing Secret is named", `{"type":"bigquery","secretRef":{"name":"absent"},"bigquery":{"project":"p1","dataset":"d","table":"t"}}`, "absent"},
		{"a Secret without credentials.json is named", `{"type":"bigquery","secretRef":{"name":"nokey"},"bigquery":{"project":"p1","dataset":"d","table":"t"}}`, `/nokey has no key "credentials.json"`},
		{"an unusable key is refused without quoting it", `{"type":"bigquery","secretRef":{"name":"garbage"},"bigquery":{"project":"p1","dataset":"d","table":"t"}}`, "credentials.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := busv1.SinkConfig{Type: "bigquery", Namespace: sinkNS, Name: "rows", Spec: json.RawMessage(tt.spec)}
			s, err := Backend{}.New(context.Background(), cfg, creds)
			if err == nil {
				_ = s.Close(context.Background())
				t.Fatal("New succeeded, want an error")
			}
			if !sink.IsPermanent(err) || !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("New returned %v (permanent %v), want a permanent error mentioning %q", err, sink.IsPermanent(err), tt.mention)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Fatalf("the error quotes the key: %v", err)
			}
		})
	}
}

func TestDefaultEgressPolicyRefusesLoopback(t *testing.T) {
	t.Run("an endpoint on loopback is refused before any request leaves", func(t *testing.T) {
		cfg := busv1.SinkConfig{Type: "bigquery", Namespace: sinkNS, Name: "rows",
			Spec: json.RawMessage(`{"type":"bigquery","bigquery":{"project":"p1","dataset":"d","table":"t"}}`)}
		s, err := Backend{Endpoint: "http://127.0.0.1:9/"}.New(context.Background(), cfg, backend.MapCredentials{})
		if err != nil {
			t.Fatal(err)
		}
		sinktest.Close(t, s)
		err = s.(*Sink).Check(context.Background())
		if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
			t.Fatalf("check returned %v, want a permanent error wrapping egress.ErrDenied", err)
		}
	})
}

func TestClassify(t *testing.T) {
	api := func(code int, reason, msg string) error {
		return &googleapi.Error{Code: code, Message: msg, Errors: []googleapi.ErrorItem{{Reason: reason}}}
	}
	tests := []struct {
		name      string
		err       error
		permanent bool
	}{
		{"unauthenticated (401) is permanent", api(401, "authError", "invalid credentials"), true},
		{"access denied (403) is permanent", api(403, "accessDenied", "no permission"), true},
		{"a rate limit (403) is transient", api(403, "rateLimitExceeded", "slow down"), false},
		{"an invalid query (400) is permanent", api(400, "invalidQuery", "syntax"), true},
		{"a transaction conflict (400) is transient", api(400, "invalidQuery", "Transaction is aborted due to concurrent update"), false},
		{"a server error (500) is transient", api(500, "backendError", "oops"), false},
		{"a job denied access is permanent", &bigquery.Error{Reason: "accessDenied", Message: "denied"}, true},
		{"a job hitting a backend error is transient", &bigquery.Error{Reason: "backendError", Message: "retry"}, false},
		{"a network error is transient", &url.Error{Op: "Post", URL: "https://bigquery.googleapis.com", Err: errors.New("connection reset")}, false},
		{"a denied address is permanent", &url.Error{Op: "Post", URL: "http://10.0.0.1", Err: fmt.Errorf("dial: %w", sink.Permanent(egress.ErrDenied))}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classify(context.Background(), "apply", tt.err)
			if sink.IsPermanent(got) != tt.permanent {
				t.Fatalf("classify(%v) = %v, permanent %v; want %v", tt.err, got, sink.IsPermanent(got), tt.permanent)
			}
		})
	}
	t.Run("an error under a cancelled context wraps context.Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := classify(ctx, "apply", errors.New("boom")); !errors.Is(err, context.Canceled) {
			t.Fatalf("classify = %v, want context.Canceled", err)
		}
	})
}
