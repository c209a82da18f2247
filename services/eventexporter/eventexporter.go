package eventexporter

import (
	"context"
	"flag"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/services/eventexporter/internal/kafka"
	"kollect.dev/kollect/services/eventexporter/internal/nats"
)

// Config configures the event exporter.
type Config struct {
	exporter.ServiceConfig
}

// DefaultConfig returns the event family's service defaults.
func DefaultConfig() Config {
	return Config{ServiceConfig: exporter.DefaultServiceConfig(busv1.FamilyEvent)}
}

// BindFlags registers a flag for every setting, defaulting to c's values.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	c.ServiceConfig.BindFlags(fs)
}

// Backends returns the family's backends configured by c. The imports of
// this file are the list of messaging SDKs in the binary.
func Backends(c Config) []backend.Backend {
	p := c.Egress()
	return []backend.Backend{kafka.Backend{Egress: p}, nats.Backend{Egress: p}}
}

// Run exports snapshot events to event sinks until ctx ends.
func Run(ctx context.Context, c Config) error {
	return exporter.Serve(ctx, c.ServiceConfig, Backends(c)...)
}
