package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/request"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

var (
	deadLettersResource        = schema.GroupResource{Group: queryv1.Group, Resource: queryv1.ResourceDeadLetters}
	clusterDeadLettersResource = schema.GroupResource{Group: queryv1.Group, Resource: queryv1.ResourceClusterDeadLetters}
)

// deadLettersREST serves deadletters: list (a namespace's, or with no
// namespace every namespaced inventory's; the label selectors
// kollect.dev/inventory=NAME and kollect.dev/family=FAMILY narrow the
// subjects read) and get by sequence; with cluster, clusterdeadletters, the
// same for cluster inventories. A caller sees a dead letter only with get
// on its inventory, as for its revisions (mayRead): the dead letter holds
// no rows, only the reason and message the inventory's status showed.
type deadLettersREST struct {
	*backend
	cluster bool
	stream  *deadLetterStream
}

// deadLetterStream opens the dead-letter stream once it exists.
type deadLetterStream struct {
	js jetstream.JetStream
	mu sync.Mutex
	st jetstream.Stream
}

func (d *deadLetterStream) get(ctx context.Context) (jetstream.Stream, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.st != nil {
		return d.st, nil
	}
	st, err := d.js.Stream(ctx, bus.StreamDeadLetters)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("open %s: %w", bus.StreamDeadLetters, err))
	}
	d.st = st
	return st, nil
}

func (s *deadLettersREST) New() runtime.Object {
	if s.cluster {
		return &queryv1.ClusterDeadLetter{}
	}
	return &queryv1.DeadLetter{}
}

func (s *deadLettersREST) NewList() runtime.Object {
	if s.cluster {
		return &queryv1.ClusterDeadLetterList{}
	}
	return &queryv1.DeadLetterList{}
}

func (s *deadLettersREST) Destroy()              {}
func (s *deadLettersREST) NamespaceScoped() bool { return !s.cluster }
func (s *deadLettersREST) Categories() []string  { return []string{"kollect"} }

func (s *deadLettersREST) GetSingularName() string {
	if s.cluster {
		return "clusterdeadletter"
	}
	return "deadletter"
}

func (s *deadLettersREST) resource() schema.GroupResource {
	if s.cluster {
		return clusterDeadLettersResource
	}
	return deadLettersResource
}

// Get returns the dead letter whose sequence is name, when it belongs to
// an inventory of the request's namespace (a cluster inventory for
// clusterdeadletters) the caller may get.
func (s *deadLettersREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	seq, err := strconv.ParseUint(name, 10, 64)
	if err != nil || seq == 0 {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("dead letter %q: its name is its sequence, a positive number", name))
	}
	release, err := s.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	st, err := s.stream.get(ctx)
	if err != nil {
		return nil, err
	}
	m, err := st.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, apierrors.NewNotFound(s.resource(), name)
	} else if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("read dead letter %d: %w", seq, err))
	}
	dl, err := toDeadLetter(m)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if dl.Namespace != request.NamespaceValue(ctx) || (dl.Namespace == "") != s.cluster {
		return nil, apierrors.NewNotFound(s.resource(), name) // another namespace's
	}
	if err := mayRead(ctx, s.authz, busv1.NamespacedName{Namespace: dl.Namespace, Name: dl.Inventory}); err != nil {
		return nil, err
	}
	if s.cluster {
		return (*queryv1.ClusterDeadLetter)(dl), nil
	}
	return dl, nil
}

// List returns a page of dead letters, oldest first.
func (s *deadLettersREST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	out, err := s.list(ctx, opts)
	if err != nil || !s.cluster {
		return out, err
	}
	l := &queryv1.ClusterDeadLetterList{ListMeta: out.ListMeta, Items: make([]queryv1.ClusterDeadLetter, len(out.Items))}
	for i := range out.Items {
		l.Items[i] = queryv1.ClusterDeadLetter(out.Items[i])
	}
	return l, nil
}

func (s *deadLettersREST) list(ctx context.Context, opts *metainternalversion.ListOptions) (*queryv1.DeadLetterList, error) {
	ns := request.NamespaceValue(ctx)
	c, err := decodeCursor(opts.Continue)
	if err != nil {
		return nil, err
	}
	filter, explicit := s.filter(ns, opts.LabelSelector)
	if explicit != nil {
		if err := mayRead(ctx, s.authz, *explicit); err != nil {
			return nil, err
		}
	}
	release, err := s.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	st, err := s.stream.get(ctx)
	if err != nil {
		return nil, err
	}
	size := pageSize(opts.Limit, s.limits.Revisions, s.limits.Revisions)
	out := &queryv1.DeadLetterList{Items: []queryv1.DeadLetter{}}
	allowed := map[busv1.NamespacedName]bool{}
	next := c.From + 1
	for scanned := 0; ; scanned++ {
		if scanned == max(s.limits.DeadLetterScan, size) {
			out.Continue = cursor{From: next - 1}.encode()
			return out, nil
		}
		m, err := st.GetMsg(ctx, next, jetstream.WithGetMsgSubject(filter))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return out, nil
		} else if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("read %s: %w", bus.StreamDeadLetters, err))
		}
		next = m.Sequence + 1
		dl, err := toDeadLetter(m)
		if err != nil || (dl.Namespace == "") != s.cluster {
			continue // not a dead-letter subject, or a cluster inventory's among all namespaces'
		}
		if opts.LabelSelector != nil && !opts.LabelSelector.Matches(labels.Set(dl.Labels)) {
			continue
		}
		inv := busv1.NamespacedName{Namespace: dl.Namespace, Name: dl.Inventory}
		ok, seen := allowed[inv]
		if !seen {
			ok = mayRead(ctx, s.authz, inv) == nil
			allowed[inv] = ok
		}
		if !ok {
			continue // not the caller's to see: not listed
		}
		if len(out.Items) == size {
			out.Continue = cursor{From: out.Items[size-1].Sequence}.encode()
			return out, nil
		}
		out.Items = append(out.Items, *dl)
	}
}

// filter is the subject filter of a list in ns (every namespace when
// empty, the cluster inventories for clusterdeadletters) narrowed by the
// selector's exact inventory and family, and the inventory named exactly
// in one namespace, which the caller must be allowed to read.
func (s *deadLettersREST) filter(ns string, sel labels.Selector) (string, *busv1.NamespacedName) {
	family, nsTok, invTok := "*", "*", "*"
	if s.cluster {
		nsTok = bus.EmptyToken
	} else if ns != "" {
		nsTok = bus.EncodeToken(ns)
	}
	var explicit *busv1.NamespacedName
	if sel != nil {
		if f, ok := sel.RequiresExactMatch(queryv1.LabelFamily); ok && f != "" {
			family = bus.EncodeToken(f)
		}
		if n, ok := sel.RequiresExactMatch(queryv1.LabelInventory); ok && n != "" {
			invTok = bus.EncodeToken(n)
			if s.cluster || ns != "" {
				explicit = &busv1.NamespacedName{Namespace: ns, Name: n}
			}
		}
	}
	return bus.DeadLetterSubjectFilter(family, nsTok, invTok), explicit
}

// toDeadLetter decodes a message of the dead-letter stream.
func toDeadLetter(m *jetstream.RawStreamMsg) (*queryv1.DeadLetter, error) {
	fam, inv, err := bus.ParseDeadLetterSubject(m.Subject)
	if err != nil {
		return nil, fmt.Errorf("dead letter %d: %w", m.Sequence, err)
	}
	var d busv1.DeadLetter
	if err := json.Unmarshal(m.Data, &d); err != nil {
		return nil, fmt.Errorf("decode dead letter %d: %w", m.Sequence, err)
	}
	name := strconv.FormatUint(m.Sequence, 10)
	return &queryv1.DeadLetter{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: inv.Namespace, CreationTimestamp: metav1.NewTime(d.Time),
			Labels: map[string]string{queryv1.LabelInventory: inv.Name, queryv1.LabelFamily: string(fam)}},
		Sequence: m.Sequence, Inventory: inv.Name, Family: fam, Sink: d.Sink, Revision: d.Revision,
		Reason: d.Reason, Message: d.Message, Time: metav1.NewTime(d.Time),
		Subject: d.Subject, StreamSequence: d.StreamSequence, Headers: d.Headers,
	}, nil
}
