package exportertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/testenv"
)

// SinkNamespace is the namespace of the sinks CheckSecretRefNamespaces
// configures; OtherNamespace holds the Secret they reference.
const (
	SinkNamespace  = "team-a"
	OtherNamespace = "team-b"
)

// CheckSecretRefNamespaces runs family's exporter runtime with backends on
// an embedded bus, with one sink of SinkNamespace per backend type (specs
// maps every type to a spec; its secretRef is set to Secret "creds-<type>"
// of OtherNamespace, holding data) and asks each sink for a connection
// test. With the default credential policy every answer must be a
// permanent SecretRefDenied and no Secret may be read, whatever the
// backend; with cross-namespace references allowed each backend must read
// its Secret, and only that one.
func CheckSecretRefNamespaces(t *testing.T, family busv1.Family, backends []backend.Backend, specs map[string]map[string]any, data map[string][]byte) {
	t.Helper()
	for _, b := range backends {
		if _, ok := specs[b.Type()]; !ok {
			t.Fatalf("no spec for backend type %s: every backend must be checked", b.Type())
		}
	}
	n := testenv.StartNATS(t)
	if err := bus.Provision(context.Background(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	for typ, spec := range specs {
		spec = maps(spec)
		spec["type"], spec["secretRef"] = typ, map[string]string{"name": "creds-" + typ, "namespace": OtherNamespace}
		raw, _ := json.Marshal(spec)
		put(t, n, busv1.SinkConfig{Family: family, Type: typ, Namespace: SinkNamespace, Name: typ, Generation: 1, Spec: raw})
	}
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprintf("cross-namespace references allowed %t", allow), func(t *testing.T) {
			log := &ReadLog{MapCredentials: backend.MapCredentials{}}
			var want []busv1.NamespacedName
			for typ := range specs {
				want = append(want, busv1.NamespacedName{Namespace: OtherNamespace, Name: "creds-" + typ})
				log.MapCredentials[want[len(want)-1]] = data
			}
			c := exporter.DefaultConfig(family)
			c.Credentials, c.ProbeTimeout = log, 3*time.Second
			c.CredentialPolicy.AllowCrossNamespaceSecretRefs = allow
			stop := run(t, n, c, backends)
			defer stop()
			for typ := range specs {
				reply := probe(t, n, busv1.SinkRef{Family: family, Namespace: SinkNamespace, Name: typ})
				denied := !reply.OK && reply.Permanent && reply.Reason == v1alpha1.ReasonSecretRefDenied
				if denied == allow {
					t.Errorf("%s sink: reply %+v, want SecretRefDenied %t", typ, reply, !allow)
				}
			}
			got := log.Reads()
			if !allow {
				if len(got) != 0 {
					t.Fatalf("Secrets %v were read, want none", got)
				}
				return
			}
			slices.SortFunc(want, func(a, b busv1.NamespacedName) int { return strings.Compare(a.Name, b.Name) })
			got = slices.Compact(slices.SortedFunc(slices.Values(got), func(a, b busv1.NamespacedName) int {
				return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
			}))
			if !slices.Equal(got, want) {
				t.Fatalf("Secrets read %v, want each backend's own %v", got, want)
			}
		})
	}
}

func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func put(t *testing.T, n *testenv.NATS, sc busv1.SinkConfig) {
	t.Helper()
	kv, err := n.JS.KeyValue(context.Background(), bus.BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(sc)
	key := bus.ConfigKey(bus.ConfigRef{Kind: sc.Family.SinkKind(), Namespace: sc.Namespace, Name: sc.Name})
	if _, err := kv.Put(context.Background(), key, b); err != nil {
		t.Fatal(err)
	}
}

// run starts the runtime and returns the function stopping it.
func run(t *testing.T, n *testenv.NATS, c exporter.Config, backends []backend.Backend) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- exporter.Run(ctx, n.JS, c, backends...) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("exporter: %v", err)
		}
	}
}

// probe asks for a connection test of ref until a runtime answers.
func probe(t *testing.T, n *testenv.NATS, ref busv1.SinkRef) busv1.ConnectionTestReply {
	t.Helper()
	req, _ := json.Marshal(busv1.ConnectionTestRequest{RequestID: ref.Name, Sink: ref, SinkGeneration: 1})
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, err := n.Conn.Request(bus.ConnTestSubject(ref.Family), req, 20*time.Second)
		if errors.Is(err, nats.ErrNoResponders) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatalf("connection test of %s: %v", ref.Name, err)
		}
		var reply busv1.ConnectionTestReply
		if err := json.Unmarshal(m.Data, &reply); err != nil {
			t.Fatal(err)
		}
		return reply
	}
}
