package kafka_test

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/eventexporter/internal/kafka"
)

func saslSpec(broker, mechanism string) map[string]any {
	sp := spec(broker, "auth", "")
	sp["secretRef"] = map[string]any{"name": "kafka-creds"}
	sp["kafka"].(map[string]any)["sasl"] = map[string]any{"mechanism": mechanism}
	return sp
}

func secret(user, pass string) backend.MapCredentials {
	return backend.MapCredentials{{Namespace: "team-a", Name: "kafka-creds"}: {"username": []byte(user), "password": []byte(pass)}}
}

func TestSASL(t *testing.T) {
	tests := []struct {
		name      string
		mechanism string
		password  string
		ok        bool
	}{
		{"PLAIN with the right password writes", "PLAIN", "pw-plain", true},
		{"PLAIN with a wrong password is permanent", "PLAIN", "nope", false},
		{"SCRAM-SHA-256 with the right password writes", "SCRAM-SHA-256", "pw-256", true},
		{"SCRAM-SHA-256 with a wrong password is permanent", "SCRAM-SHA-256", "nope", false},
		{"SCRAM-SHA-512 with the right password writes", "SCRAM-SHA-512", "pw-512", true},
		{"SCRAM-SHA-512 with a wrong password is permanent", "SCRAM-SHA-512", "nope", false},
	}
	broker := startKafka(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "alice", "pw-plain"),
		kfake.Superuser("SCRAM-SHA-256", "alice", "pw-256"), kfake.Superuser("SCRAM-SHA-512", "alice", "pw-512"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink(t, private, sinkConfig(t, saslSpec(broker, tt.mechanism)), secret("alice", tt.password))
			err := s.Write(context.Background(), snap(t, web, 1, row("a", 1)))
			checkErr := s.Check(context.Background())
			if tt.ok {
				if err != nil || checkErr != nil {
					t.Fatalf("write: %v; check: %v", err, checkErr)
				}
				return
			}
			expectPermanent(t, err, "refused SASL authentication")
			expectPermanent(t, checkErr, "refused SASL authentication")
		})
	}
}

func TestSecretErrors(t *testing.T) {
	tests := []struct {
		name  string
		creds backend.MapCredentials
		want  string
	}{
		{"a missing Secret is permanent and named", backend.MapCredentials{}, "team-a/kafka-creds"},
		{"a missing password key is permanent and named", backend.MapCredentials{{Namespace: "team-a", Name: "kafka-creds"}: {"username": []byte("u")}}, `"password"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := private.New(context.Background(), sinkConfig(t, saslSpec("kafka.example.com:9092", "PLAIN")), tt.creds)
			expectPermanent(t, err, tt.want)
		})
	}
}

func TestDefaultEgressPolicyRefusesLoopback(t *testing.T) {
	broker := startKafka(t)
	s := newSink(t, kafka.Backend{}, sinkConfig(t, spec(broker, "denied", "")), nil)
	err := s.Write(context.Background(), snap(t, web, 1, row("a", 1)))
	if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("write to a loopback broker under the default policy: %v, want a permanent error wrapping egress.ErrDenied", err)
	}
	if err := s.Check(context.Background()); !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("check: %v, want a permanent error wrapping egress.ErrDenied", err)
	}
}

func TestInvalidSpec(t *testing.T) {
	tests := []struct {
		name string
		spec map[string]any
		want string
	}{
		{"no kafka block", map[string]any{"type": "kafka", "endpoint": "k:9092"}, "spec.kafka: Required value"},
		{"neither brokers nor endpoint", map[string]any{"type": "kafka", "kafka": map[string]any{"topic": "t"}}, "set exactly one of endpoint and kafka.brokers"},
		{"both brokers and endpoint", map[string]any{"type": "kafka", "endpoint": "k:9092", "kafka": map[string]any{"topic": "t", "brokers": []string{"k:9092"}}}, "set exactly one of endpoint and kafka.brokers"},
		{"a broker without a port", map[string]any{"type": "kafka", "kafka": map[string]any{"topic": "t", "brokers": []string{"k"}}}, "spec.kafka.brokers"},
		{"a bad topic", map[string]any{"type": "kafka", "endpoint": "k:9092", "kafka": map[string]any{"topic": "a/b"}}, "spec.kafka.topic"},
		{"an unknown field", map[string]any{"type": "kafka", "endpoint": "k:9092", "kafka": map[string]any{"topic": "t", "topik": "u"}}, `unknown field "topik"`},
		{"SASL without a Secret", map[string]any{"type": "kafka", "endpoint": "k:9092", "kafka": map[string]any{"topic": "t", "sasl": map[string]any{"mechanism": "PLAIN"}}}, "secretRef"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a permanent error naming the field", func(t *testing.T) {
			_, err := private.New(context.Background(), sinkConfig(t, tt.spec), backend.MapCredentials{})
			expectPermanent(t, err, tt.want)
		})
	}
}

func TestProvisioning(t *testing.T) {
	broker := startKafka(t, kfake.SeedTopics(1, "present"))
	existing := func(topic string) busv1.SinkConfig {
		sp := spec(broker, topic, "")
		sp["provisioning"] = map[string]any{"mode": "existing"}
		return sinkConfig(t, sp)
	}
	t.Run("existing mode on a missing topic is a permanent error naming it", func(t *testing.T) {
		s := newSink(t, private, existing("absent"), nil)
		expectPermanent(t, s.Write(context.Background(), snap(t, web, 1, row("a", 1))), "kafka topic absent does not exist")
		expectPermanent(t, s.Check(context.Background()), "absent")
	})
	t.Run("existing mode on a present topic writes", func(t *testing.T) {
		s := newSink(t, private, existing("present"), nil)
		write(t, s, snap(t, web, 1, row("a", 1)))
	})
	t.Run("ensure mode creates a compacted topic in perRow mode", func(t *testing.T) {
		s := newSink(t, private, sinkConfig(t, spec(broker, "compacted", "perRow")), nil)
		if err := s.Check(context.Background()); err != nil {
			t.Fatalf("check before the topic exists, in ensure mode: %v", err)
		}
		write(t, s, snap(t, web, 1, row("a", 1)))
		if got := topicConfig(t, broker, "compacted", "cleanup.policy"); got != "compact" {
			t.Fatalf("cleanup.policy = %q, want compact", got)
		}
	})
}
