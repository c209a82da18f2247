package kafka_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

func TestConformance(t *testing.T) {
	for _, mode := range []string{v1alpha1.KafkaModeSnapshot, v1alpha1.KafkaModePerRow} {
		t.Run("mode "+mode, func(t *testing.T) {
			broker := startKafka(t, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "kollect", "s3cret"))
			creds := backend.MapCredentials{{Namespace: "team-a", Name: "kafka"}: {"username": []byte("kollect"), "password": []byte("s3cret")}}
			bad := backend.MapCredentials{{Namespace: "team-a", Name: "kafka"}: {"username": []byte("kollect"), "password": []byte("wrong")}}
			n := 0
			cfg := func(topic string) busv1.SinkConfig {
				sp := spec(broker, topic, mode)
				sp["secretRef"] = map[string]any{"name": "kafka"}
				sp["kafka"].(map[string]any)["sasl"] = map[string]any{"mechanism": "SCRAM-SHA-256"}
				return sinkConfig(t, sp)
			}
			sinktest.Run(t, sinktest.Factory{
				New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
					n++
					topic := "conformance-" + string(rune('a'+n))
					s := newSink(t, private, cfg(topic), creds)
					auth := kgo.SASL(scram.Auth{User: "kollect", Pass: "s3cret"}.AsSha256Mechanism())
					return s, reader{broker: broker, topic: topic, perRow: mode == v1alpha1.KafkaModePerRow, opts: []kgo.Opt{auth}}
				},
				BadCredentials: func(t *testing.T) sink.Sink { return newSink(t, private, cfg("bad"), bad) },
			})
		})
	}
}
