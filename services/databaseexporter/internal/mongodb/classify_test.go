package mongodb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/description"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

func TestClassify(t *testing.T) {
	netErr := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	selection := func(last error) error {
		return topology.ServerSelectionError{Wrapped: context.DeadlineExceeded,
			Desc: description.Topology{Servers: []description.Server{{LastError: last}}}}
	}
	tests := []struct {
		name      string
		err       error
		permanent bool
	}{
		{"authentication failed (code 18) is permanent", mongo.CommandError{Code: 18, Name: "AuthenticationFailed"}, true},
		{"unauthorized (code 13) is permanent", mongo.CommandError{Code: 13, Name: "Unauthorized"}, true},
		{"an Atlas bad-credentials answer (code 8000) is permanent", mongo.CommandError{Code: 8000, Name: "AtlasError"}, true},
		{"a write refused as unauthorized is permanent", mongo.WriteException{WriteErrors: mongo.WriteErrors{{Code: 13}}}, true},
		{"a document too large to store is permanent", mongo.WriteException{WriteErrors: mongo.WriteErrors{{Code: 10334}}}, true},
		{"a wrapped authentication failure is permanent", fmt.Errorf("handshake: %w", mongo.CommandError{Code: 18}), true},
		{"a server selection timeout after refused credentials is permanent", selection(mongo.CommandError{Code: 18}), true},
		{"a server selection timeout on a denied address is permanent", selection(fmt.Errorf("dial: %w", sink.Permanent(egress.ErrDenied))), true},
		{"a server selection timeout on a refused connection is transient", selection(netErr), false},
		{"a network error is transient", netErr, false},
		{"a primary stepping down (code 189) is transient", mongo.CommandError{Code: 189, Name: "PrimarySteppedDown"}, false},
		{"a duplicate key is transient", mongo.WriteException{WriteErrors: mongo.WriteErrors{{Code: 11000}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classify(context.Background(), "write documents", tt.err)
			if sink.IsPermanent(got) != tt.permanent {
				t.Fatalf("classify(%v) = %v, permanent %v; want permanent %v", tt.err, got, sink.IsPermanent(got), tt.permanent)
			}
		})
	}
	t.Run("an error under a cancelled context wraps context.Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := classify(ctx, "write", netErr); !errors.Is(err, context.Canceled) {
			t.Fatalf("classify = %v, want context.Canceled in the chain", err)
		}
	})
}

func TestEscapeKey(t *testing.T) {
	tests := []struct {
		name, key, stored string
	}{
		{"a plain key is stored unchanged", "image", "image"},
		{"dots are escaped", "app.kubernetes.io/name", "app%2Ekubernetes%2Eio/name"},
		{"a leading dollar is escaped", "$ref", "%24ref"},
		{"a dollar elsewhere is kept", "a$b", "a$b"},
		{"percent is escaped first so that escapes stay unique", "a%2Eb", "a%252Eb"},
		{"NUL is escaped", "a\x00b", "a%00b"},
		{"a key that looks escaped round-trips", "%24ref", "%2524ref"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EscapeKey(tt.key); got != tt.stored {
				t.Errorf("EscapeKey(%q) = %q, want %q", tt.key, got, tt.stored)
			}
			if back := UnescapeKey(tt.stored); back != tt.key {
				t.Errorf("UnescapeKey(%q) = %q, want %q", tt.stored, back, tt.key)
			}
		})
	}
}
