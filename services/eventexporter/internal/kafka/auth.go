package kafka

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"kollect.dev/kollect/pkg/sink"
)

// errAuthRefused is the cause of operations stopped because a broker closed
// the connection in the middle of SASL authentication, which is how brokers
// that do not answer SASL_AUTHENTICATION_FAILED refuse credentials; franz-go
// would otherwise retry the closed connection until its timeout.
var errAuthRefused = errors.New("the broker refused SASL authentication (it closed the connection during the exchange): check the Secret's username and password and kafka.sasl.mechanism")

// authWatch is a franz-go hook that cancels the operations in flight, with
// errAuthRefused as the cause, when a SASLAuthenticate response cannot be
// read because the broker closed the connection.
type authWatch struct {
	mu   sync.Mutex
	next int
	ops  map[int]context.CancelCauseFunc
}

var _ kgo.HookBrokerRead = (*authWatch)(nil)

// OnBrokerRead implements kgo.HookBrokerRead.
func (a *authWatch) OnBrokerRead(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key != int16(kmsg.SASLAuthenticate) || !errors.Is(err, io.EOF) {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, cancel := range a.ops {
		cancel(errAuthRefused)
	}
}

// op returns a context for one operation that an authentication refusal
// cancels, and the function that ends the operation.
func (a *authWatch) op(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ops == nil {
		a.ops = map[int]context.CancelCauseFunc{}
	}
	id := a.next
	a.next++
	a.ops[id] = cancel
	return ctx, func() {
		a.mu.Lock()
		delete(a.ops, id)
		a.mu.Unlock()
		cancel(nil)
	}
}

// refused returns the permanent error of an operation cancelled by an
// authentication refusal, or nil.
func refused(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), errAuthRefused) {
		return sink.Permanent(errAuthRefused)
	}
	return nil
}
