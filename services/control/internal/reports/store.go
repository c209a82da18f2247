package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"kollect.dev/kollect/pkg/app"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// ObjectKey names the object a report is about.
type ObjectKey struct {
	// Kind of the object.
	Kind busv1.Kind
	// Namespace of the object, empty for cluster-scoped kinds.
	Namespace string
	// Name of the object.
	Name string
}

// Store holds the latest report per status subject, which is per (service,
// object, section): the stream keeps one message per subject and the store
// keeps the newest it read. It runs only on the leader, where the
// reconcilers that read it run.
type Store struct {
	js     jetstream.JetStream
	log    logr.Logger
	newObj func(busv1.Kind) client.Object

	mu      sync.Mutex
	byObj   map[ObjectKey]map[string]busv1.StatusReport
	channel map[busv1.Kind]chan event.GenericEvent
}

// New returns a Store reading js's status stream. newObj returns an empty
// object of a kind, used to name the object in the events it sends.
func New(js jetstream.JetStream, log logr.Logger, newObj func(busv1.Kind) client.Object) *Store {
	return &Store{
		js: js, log: log, newObj: newObj,
		byObj:   map[ObjectKey]map[string]busv1.StatusReport{},
		channel: map[busv1.Kind]chan event.GenericEvent{},
	}
}

// Events returns the channel on which the store names objects of kind that
// got a new report; a controller watches it with source.Channel. Call it
// before Start.
func (s *Store) Events(kind busv1.Kind) <-chan event.GenericEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, ok := s.channel[kind]
	if !ok {
		ch = make(chan event.GenericEvent, 1024)
		s.channel[kind] = ch
	}
	return ch
}

// Reports returns the latest reports about one object, in subject order.
func (s *Store) Reports(k ObjectKey) []busv1.StatusReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byObj[k]
	subjects := make([]string, 0, len(m))
	for subj := range m {
		subjects = append(subjects, subj)
	}
	slices.Sort(subjects)
	out := make([]busv1.StatusReport, 0, len(m))
	for _, subj := range subjects {
		out = append(out, m[subj])
	}
	return out
}

// Start reads the status stream from the latest message of every subject
// until ctx ends. An ordered consumer recreates itself after a NATS restart.
func (s *Store) Start(ctx context.Context) error {
	cons, err := s.js.OrderedConsumer(ctx, bus.StreamStatus, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{bus.StatusSubjects},
		DeliverPolicy:  jetstream.DeliverLastPerSubjectPolicy,
	})
	if err != nil {
		return fmt.Errorf("consume stream %s: %w", bus.StreamStatus, err)
	}
	cc, err := cons.Consume(func(m jetstream.Msg) { s.add(ctx, m.Subject(), m.Data()) })
	if err != nil {
		return fmt.Errorf("consume stream %s: %w", bus.StreamStatus, err)
	}
	<-ctx.Done()
	cc.Stop()
	return nil
}

func (s *Store) add(ctx context.Context, subject string, data []byte) {
	var r busv1.StatusReport
	if err := json.Unmarshal(data, &r); err != nil {
		s.log.Error(err, "decode status report", app.KeySubject, subject)
		return
	}
	if _, err := bus.ParseStatusSubject(subject); err != nil {
		s.log.Error(err, "status report on an unknown subject", app.KeySubject, subject)
		return
	}
	k := ObjectKey{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
	s.mu.Lock()
	m := s.byObj[k]
	if m == nil {
		m = map[string]busv1.StatusReport{}
		s.byObj[k] = m
	}
	m[subject] = r
	ch := s.channel[r.Kind]
	s.mu.Unlock()
	if ch == nil {
		return
	}
	obj := s.newObj(r.Kind)
	if obj == nil {
		return
	}
	obj.SetNamespace(r.Namespace)
	obj.SetName(r.Name)
	select {
	case ch <- event.GenericEvent{Object: obj}:
	case <-ctx.Done():
	}
}
