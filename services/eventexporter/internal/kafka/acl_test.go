package kafka_test

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestAuthorization(t *testing.T) {
	allow := func(op kmsg.ACLOperation) kfake.ACL {
		return kfake.ACL{Resource: kmsg.ACLResourceTypeTopic, Name: "allowed", Pattern: kmsg.ACLResourcePatternTypeLiteral,
			Operation: op, Allow: true}
	}
	broker := startKafka(t, kfake.EnableSASL(), kfake.EnableACLs(), kfake.SeedTopics(1, "allowed", "forbidden"),
		kfake.Superuser("PLAIN", "admin", "admin"),
		kfake.User("PLAIN", "writer", "pw", allow(kmsg.ACLOperationDescribe), allow(kmsg.ACLOperationWrite)))
	tests := []struct {
		name  string
		topic string
		ok    bool
	}{
		{"a principal allowed to write to an existing topic writes without the right to create topics", "allowed", true},
		{"a topic the principal may not write to is a permanent error", "forbidden", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := saslSpec(broker, "PLAIN")
			sp["kafka"].(map[string]any)["topic"] = tt.topic
			s := newSink(t, private, sinkConfig(t, sp), secret("writer", "pw"))
			err := s.Write(context.Background(), snap(t, web, 1, row("a", 1)))
			if tt.ok {
				if err != nil {
					t.Fatalf("write: %v", err)
				}
				return
			}
			expectPermanent(t, err, "TOPIC_AUTHORIZATION_FAILED")
		})
	}
}
