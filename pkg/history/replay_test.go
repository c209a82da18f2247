package history_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
)

func publish(t *testing.T, n *testenv.NATS, ev busv1.SnapshotEvent) {
	t.Helper()
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	msg := &nats.Msg{Subject: bus.SnapshotSubject(ev.Inventory), Data: b}
	if _, err := n.JS.PublishMsg(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
}

func TestListAndFetchAnOldRevision(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	row := busv1.Row{TargetNamespace: "team-a", TargetName: "web", Namespace: "team-a", Name: "a", UID: "u1"}
	env := busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: "c2", Revision: 2, Inventory: inv,
		ItemCount: 1, Items: []busv1.Row{row}}
	envBytes, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := n.JS.ObjectStore(ctx, bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	name := bus.EnvelopeObjectName(inv, 2)
	info, err := obs.PutBytes(ctx, name, envBytes)
	if err != nil {
		t.Fatal(err)
	}
	publish(t, n, busv1.SnapshotEvent{Inventory: inv, Revision: 1, Checksum: "c1", CreatedAt: t0, Reason: busv1.ReasonChange,
		Envelope: &busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: "c1", Revision: 1, Inventory: inv}})
	publish(t, n, busv1.SnapshotEvent{Inventory: inv, Revision: 2, Checksum: "c2", ItemCount: 1, CreatedAt: t0.Add(time.Minute),
		Reason: busv1.ReasonChange, EnvelopeRef: &busv1.ObjectRef{Bucket: bus.ObjectStoreEnvelopes, Name: name, Size: int64(info.Size)}})
	publish(t, n, busv1.SnapshotEvent{Inventory: busv1.NamespacedName{Namespace: "team-b", Name: "inv"}, Revision: 9})

	l, err := history.List(ctx, n.JS, inv)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 2 || l[0].Revision != 1 || l[1].Revision != 2 || l[1].ItemCount != 1 || l[1].Checksum != "c2" ||
		!l[1].Time.Equal(t0.Add(time.Minute)) {
		t.Fatalf("List = %+v", l)
	}
	ev, got, err := history.Fetch(ctx, n.JS, inv, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Revision != 2 || got.Checksum != "c2" || len(got.Items) != 1 || got.Items[0].UID != "u1" {
		t.Fatalf("Fetch(2) = %+v, %+v", ev, got)
	}
	if _, got, err = history.FetchAt(ctx, n.JS, inv, t0.Add(30*time.Second)); err != nil || got.Revision != 1 {
		t.Fatalf("FetchAt between the two = %+v, %v", got, err)
	}
	if _, _, err := history.Fetch(ctx, n.JS, inv, 3); !errors.Is(err, history.ErrNotFound) {
		t.Errorf("Fetch(3) error = %v, want ErrNotFound", err)
	}
	if last, err := history.Last(ctx, n.JS, inv); err != nil || last.Event.Revision != 2 {
		t.Errorf("Last = %+v, %v", last, err)
	}
	if l, err := history.List(ctx, n.JS, busv1.NamespacedName{Name: "none"}); err != nil || len(l) != 0 {
		t.Errorf("List of an inventory without history = %v, %v", l, err)
	}
}
