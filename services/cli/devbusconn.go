package cli

import (
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/cli/internal/devbus"
)

// connectBus opens the CLI's connection to the bus at url, with the
// credentials `kollect dev` wrote for its embedded bus when url is that
// bus (devbus.Options).
func connectBus(url string) (*nats.Conn, jetstream.JetStream, error) {
	opts, err := devbus.Options(url)
	if err != nil {
		return nil, nil, err
	}
	return bus.Connect(url, "cli", opts...)
}
