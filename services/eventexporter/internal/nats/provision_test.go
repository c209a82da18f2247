package nats_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"kollect.dev/kollect/pkg/exporter/backend"
)

func TestProvisioning(t *testing.T) {
	p := startNATS(t, nil)
	ctx := context.Background()
	if _, err := p.js.CreateStream(ctx, jetstream.StreamConfig{Name: "OTHER", Subjects: []string{"other.>"}}); err != nil {
		t.Fatal(err)
	}
	existing := func(sp map[string]any) map[string]any {
		sp["provisioning"] = map[string]any{"mode": "existing"}
		return sp
	}
	t.Run("existing mode on a missing stream is a permanent error naming it", func(t *testing.T) {
		s := newSink(t, private, sinkConfig(t, existing(spec(p.url, "x.events", "ABSENT"))), nil)
		expectPermanent(t, s.Write(ctx, snap(t, 1, row("a", 1))), "stream ABSENT does not exist")
		expectPermanent(t, s.Check(ctx), "stream ABSENT does not exist")
	})
	t.Run("existing mode on a stream that does not capture the subject is permanent", func(t *testing.T) {
		s := newSink(t, private, sinkConfig(t, existing(spec(p.url, "x.events", "OTHER"))), nil)
		expectPermanent(t, s.Write(ctx, snap(t, 1, row("a", 1))), "stream OTHER does not capture subject x.events")
	})
	t.Run("existing mode on a stream capturing the subject by wildcard publishes", func(t *testing.T) {
		s := newSink(t, private, sinkConfig(t, existing(spec(p.url, "other.inventory", "OTHER"))), nil)
		write(t, s, snap(t, 1, row("a", 1)))
	})
	t.Run("without a stream name the stream capturing the subject is used", func(t *testing.T) {
		s := newSink(t, private, sinkConfig(t, spec(p.url, "other.unnamed", "")), nil)
		write(t, s, snap(t, 1, row("a", 1)))
		if err := s.Check(ctx); err != nil {
			t.Fatalf("check: %v", err)
		}
	})
	t.Run("without a stream name and no stream capturing the subject is permanent", func(t *testing.T) {
		s := newSink(t, private, sinkConfig(t, spec(p.url, "nowhere.events", "")), nil)
		expectPermanent(t, s.Write(ctx, snap(t, 1, row("a", 1))), "no JetStream stream captures subject nowhere.events")
		expectPermanent(t, s.Check(ctx), "no JetStream stream captures subject nowhere.events")
	})
	t.Run("ensure mode adds the subject to an existing stream and keeps its subjects", func(t *testing.T) {
		if _, err := p.js.CreateStream(ctx, jetstream.StreamConfig{Name: "SHARED", Subjects: []string{"shared.a"}}); err != nil {
			t.Fatal(err)
		}
		s := newSink(t, private, sinkConfig(t, spec(p.url, "shared.b", "SHARED")), nil)
		write(t, s, snap(t, 1, row("a", 1)))
		st, err := p.js.Stream(ctx, "SHARED")
		if err != nil {
			t.Fatal(err)
		}
		if got := st.CachedInfo().Config.Subjects; len(got) != 2 || got[0] != "shared.a" || got[1] != "shared.b" {
			t.Fatalf("stream subjects = %v, want [shared.a shared.b]", got)
		}
	})
}

func TestInvalidSpec(t *testing.T) {
	tests := []struct {
		name string
		spec map[string]any
		want string
	}{
		{"no nats block", map[string]any{"type": "nats", "endpoint": "nats://n:4222"}, "spec.nats: Required value"},
		{"neither url nor endpoint", map[string]any{"type": "nats", "nats": map[string]any{"subject": "s"}}, "set exactly one of endpoint and nats.url"},
		{"both url and endpoint", map[string]any{"type": "nats", "endpoint": "nats://n:4222", "nats": map[string]any{"subject": "s", "url": "nats://n:4222"}}, "set exactly one of endpoint and nats.url"},
		{"an http url", map[string]any{"type": "nats", "nats": map[string]any{"subject": "s", "url": "http://n:4222"}}, "spec.nats.url"},
		{"credentials in the url", map[string]any{"type": "nats", "nats": map[string]any{"subject": "s", "url": "nats://u:p@n:4222"}}, "must not carry credentials"},
		{"an unparsable url with a password", map[string]any{"type": "nats", "nats": map[string]any{"subject": "s", "url": "nats://u:s3cr3t@n:notaport"}}, "spec.nats.url"},
		{"a wildcard subject", map[string]any{"type": "nats", "endpoint": "nats://n:4222", "nats": map[string]any{"subject": "a.>"}}, "spec.nats.subject"},
		{"an empty subject token", map[string]any{"type": "nats", "endpoint": "nats://n:4222", "nats": map[string]any{"subject": "a..b"}}, "spec.nats.subject"},
		{"a stream name with a dot", map[string]any{"type": "nats", "endpoint": "nats://n:4222", "nats": map[string]any{"subject": "a", "stream": "a.b"}}, "spec.nats.stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a permanent error naming the field", func(t *testing.T) {
			_, err := private.New(context.Background(), sinkConfig(t, tt.spec), backend.MapCredentials{})
			expectPermanent(t, err, tt.want)
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Fatalf("the error quotes the password: %v", err)
			}
		})
	}
}
