package nats_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
	natssink "kollect.dev/kollect/services/eventexporter/internal/nats"
	"kollect.dev/kollect/services/eventexporter/internal/parts/partstest"
)

// peer is an embedded JetStream server standing in for the user's external
// NATS, and an admin connection to it.
type peer struct {
	url string
	js  jetstream.JetStream
}

// startNATS starts an embedded JetStream server on a loopback port; set
// adjusts its options (auth, TLS, max payload). adminOpts connect the
// test's own client.
func startNATS(t testing.TB, set func(*server.Options), adminOpts ...nats.Option) *peer {
	t.Helper()
	o := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, JetStreamMaxStore: testenv.MaxStore, StoreDir: t.TempDir(), NoSigs: true, NoLog: true}
	if set != nil {
		set(o)
	}
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatalf("new nats server: %v", err)
	}
	s.Start()
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	nc, err := nats.Connect(s.ClientURL(), adminOpts...)
	if err != nil {
		t.Fatalf("connect admin: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return &peer{url: s.ClientURL(), js: js}
}

// spec is a nats sink spec for url, subject and stream.
func spec(url, subject, stream string) map[string]any {
	n := map[string]any{"url": url, "subject": subject}
	if stream != "" {
		n["stream"] = stream
	}
	return map[string]any{"type": "nats", "cluster": sinktest.Cluster, "nats": n}
}

func sinkConfig(t testing.TB, spec map[string]any) busv1.SinkConfig {
	t.Helper()
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return busv1.SinkConfig{Family: busv1.FamilyEvent, Type: "nats", Namespace: "team-a", Name: "events",
		Cluster: sinktest.Cluster, Spec: b}
}

var private = natssink.Backend{Egress: egress.Policy{AllowPrivate: true}}

func newSink(t testing.TB, b natssink.Backend, cfg busv1.SinkConfig, creds backend.Credentials) *natssink.Sink {
	t.Helper()
	s, err := b.New(context.Background(), cfg, creds)
	if err != nil {
		t.Fatalf("new nats sink: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s.(*natssink.Sink)
}

// messages returns every message stored in stream, in sequence order.
func messages(ctx context.Context, js jetstream.JetStream, stream string) ([]*jetstream.RawStreamMsg, error) {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("read stream %s: %w", stream, err)
	}
	state := st.CachedInfo().State
	var out []*jetstream.RawStreamMsg
	for seq := state.FirstSeq; state.Msgs > 0 && seq <= state.LastSeq; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // deleted
		}
		if err != nil {
			return nil, fmt.Errorf("get message %d: %w", seq, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// reader rebuilds an inventory's projection from the last complete
// envelope (all its parts) the stream holds for it.
type reader struct {
	js     jetstream.JetStream
	stream string
}

func (r reader) Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	msgs, err := messages(ctx, r.js, r.stream)
	if err != nil {
		return sinktest.Projection{}, false, err
	}
	var parts []partstest.Message
	for _, m := range msgs {
		if m.Header.Get(natssink.HeaderCluster) == cluster && m.Header.Get(natssink.HeaderInventory) == inv.Namespace+"/"+inv.Name {
			parts = append(parts, partstest.Message{Where: fmt.Sprintf("message %d", m.Sequence), Data: m.Data})
		}
	}
	return partstest.LastEnvelope(parts)
}

func expectPermanent(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !sink.IsPermanent(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want a permanent error containing %q", err, want)
	}
}
