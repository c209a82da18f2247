package nats_test

import (
	"fmt"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

func TestConformance(t *testing.T) {
	p := startNATS(t, func(o *server.Options) { o.Authorization = "s3cret-token" }, nats.Token("s3cret-token"))
	creds := func(token string) backend.MapCredentials {
		return backend.MapCredentials{{Namespace: "team-a", Name: "nats"}: {"token": []byte(token)}}
	}
	n := 0
	cfg := func(t *testing.T, stream string) map[string]any {
		sp := spec(p.url, "kollect."+stream, stream)
		sp["secretRef"] = map[string]any{"name": "nats"}
		return sp
	}
	sinktest.Run(t, sinktest.Factory{
		New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
			n++
			stream := fmt.Sprintf("CONFORMANCE_%d", n)
			s := newSink(t, private, sinkConfig(t, cfg(t, stream)), creds("s3cret-token"))
			return s, reader{js: p.js, stream: stream}
		},
		BadCredentials: func(t *testing.T) sink.Sink {
			return newSink(t, private, sinkConfig(t, cfg(t, "BAD")), creds("wrong"))
		},
	})
}
