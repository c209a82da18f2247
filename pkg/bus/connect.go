package bus

import (
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// ClientName returns the NATS client name a service connects with, as shown
// by the server's connection monitoring (connz).
func ClientName(s busv1.Service) string {
	return "kollect-" + string(s)
}

// Connect opens the service's connection to the bus and its JetStream
// context. The connection never gives up: it retries the first connect in the
// background when NATS is not up yet and reconnects forever after an outage,
// so a NATS restart never crash-loops a service; JetStream calls made while
// disconnected fail with an error the caller retries. Extra options (user
// credentials, TLS) are applied last.
func Connect(url string, s busv1.Service, extra ...nats.Option) (*nats.Conn, jetstream.JetStream, error) {
	opts := append([]nats.Option{
		nats.Name(ClientName(s)),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.ReconnectJitter(500*time.Millisecond, time.Second),
	}, extra...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		// The URL may carry the service's NATS password (the chart puts it
		// there), and the parse error quotes it again.
		return nil, nil, redactedError{fmt.Errorf("connect %s to NATS at %s: %w", ClientName(s), url, err)}
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("open JetStream for %s: %w", ClientName(s), err)
	}
	return nc, js, nil
}
